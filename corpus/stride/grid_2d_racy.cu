//--blockDim=[16,8] --gridDim=[2,2]
// Racy twin of grid_2d: a pixel is written by its owner and read by the owner of the
// pixel to its left.
__global__ void grid_2d_racy(int *img, int width, int height)
{
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y) {
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x + 1 < width; x += gridDim.x * blockDim.x) {
            img[y * width + x] = img[y * width + x + 1] + 1;
        }
    }
}
