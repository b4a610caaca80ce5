//--blockDim=[16,16] --gridDim=[4,4]
// Tiled matrix product C = A * B for square matrices of any size n, with the
// barriers missing: `fix` must add them without being told n. The loads and
// the store are guarded, so every element of C has one writer whatever n is.
#define TILE 16
__global__ void matmul_symbolic(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        int ac = t * TILE + tx;
        int br = t * TILE + ty;
        ta[ty][tx] = (row < n && ac < n) ? a[row * n + ac] : 0.0f;
        tb[ty][tx] = (br < n && col < n) ? b[br * n + col] : 0.0f;
        for (int k = 0; k < TILE; k++) {
            acc += ta[ty][k] * tb[k][tx];
        }
    }
    if (row < n && col < n) {
        c[row * n + col] = acc;
    }
}
