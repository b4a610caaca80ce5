//--blockDim=[16,16] --gridDim=[4,4]
// Tiled matrix product written for n = 64 only (the grid covers exactly n
// columns and nothing is guarded), with the barriers missing. `fix` writes the
// two barriers the tiles need and reports what no barrier can fix: for other
// values of n, threads of different blocks store to the same element of C.
#define TILE 16
__global__ void matmul_partial(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TILE][TILE];
    __shared__ float tb[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; t++) {
        ta[ty][tx] = a[row * n + t * TILE + tx];
        tb[ty][tx] = b[(t * TILE + ty) * n + col];
        for (int k = 0; k < TILE; k++) {
            acc += ta[ty][k] * tb[k][tx];
        }
    }
    c[row * n + col] = acc;
}
