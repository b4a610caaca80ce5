//--blockDim=[16,4] --gridDim=2
// Each thread row works through a pointer to its own row of a 2-D shared tile,
// with both subscript and explicit pointer-plus-offset dereferences.
#define COLS 16
#define ROWS 4

__global__ void pointer_rows(const float *in, float *out)
{
    __shared__ float tile[ROWS][COLS];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int base = (blockIdx.x * ROWS + ty) * COLS;
    float *row = &tile[ty][0];
    row[tx] = in[base + tx];
    __syncthreads();
    out[base + tx] = *(row + (COLS - 1 - tx));
}
