//--blockDim=[8,8] --gridDim=[2,2]
// In-tile transpose that forgot its barrier: the transposed read races with the
// store of the thread on the other side of the diagonal.
#define TILE 8

__global__ void tile2d(const float *src, float *dst, int width)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    tile[ty][tx] = src[y * width + x];
    dst[(blockIdx.x * TILE + ty) * width + blockIdx.y * TILE + tx] = tile[tx][ty];
}
