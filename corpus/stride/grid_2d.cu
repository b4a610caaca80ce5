//--blockDim=[16,8] --gridDim=[2,2]
// A 2-D grid-stride loop nest over an image: rows step by the grid's height in
// threads, columns by its width, so each pixel has one owner.
__global__ void grid_2d(const int *src, int *dst, int width, int height)
{
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < width; x += gridDim.x * blockDim.x) {
            dst[y * width + x] = src[y * width + x] >> 1;
        }
    }
}
