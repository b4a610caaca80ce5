//--blockDim=[8,8] --gridDim=[2,2]
// Out-of-place transpose through a shared tile with one padding column, so that
// column-wise reads of the tile do not all hit the same bank.
#define TILE 8

__global__ void transpose_padded(float *dst, const float *src, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = src[y * width + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < height && y < width) {
        dst[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}
