//--blockDim=[8,8] --gridDim=[2,2]
// Square matrix product staged through two 2-D shared tiles per block.
#define TILE 8

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n)
{
    __shared__ float tileA[TILE][TILE];
    __shared__ float tileB[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float sum = 0.0f;

    for (int step = 0; step < n / TILE; ++step) {
        tileA[ty][tx] = A[row * n + step * TILE + tx];
        tileB[ty][tx] = B[(step * TILE + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            sum += tileA[ty][k] * tileB[k][tx];
        }
        __syncthreads();
    }
    C[row * n + col] = sum;
}
