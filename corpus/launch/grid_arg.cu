// The grid's x extent is the kernel's own argument `cols` (`dim3 blocks(cols, rows)`, launched
// with `cols`): a block's `blockIdx.x` is below `cols`, so the row-major index `y * cols + x`
// of two blocks differs. The guard `blockIdx.x > cols` is off by one, but no launch reaches it.
// Clean.
#include <cstdint>

__global__ void grid_arg(float *out, const float *in, int cols) {
    if (blockIdx.x > cols) {
        return;
    }
    int64_t cell = (int64_t)blockIdx.y * cols + blockIdx.x;
    out[cell * blockDim.x + threadIdx.x] = 2.0f * in[cell * blockDim.x + threadIdx.x];
}

void launch_grid_arg(float *out, const float *in, const int64_t cols, const int64_t rows, cudaStream_t s) {
    const dim3 blocks(cols, rows, 1);
    grid_arg<<<blocks, 128, 0, s>>>(out, in, cols);
}
