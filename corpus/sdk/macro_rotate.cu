//--blockDim=[16,4] --gridDim=2
// Row rotation through shared memory; all indexing goes through object-like and
// function-like macros.
#define W 16
#define H 4
#define IDX(r, c) ((r) * W + (c))
#define WRAP(c) ((c) & (W - 1))
#define TILE_BASE(b) ((b) * W * H)

__global__ void macro_rotate(const float *in, float *out)
{
    __shared__ float buf[W * H];
    int r = threadIdx.y;
    int c = threadIdx.x;
    int base = TILE_BASE(blockIdx.x);
    buf[IDX(r, c)] = in[base + IDX(r, c)];
    __syncthreads();
    out[base + IDX(r, c)] = buf[IDX(r, WRAP(c + 1))] - buf[IDX(r, c)];
}
