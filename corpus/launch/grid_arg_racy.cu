// grid_arg launched with one block too many in x (`dim3 blocks(cols + 1, rows)`): block
// (cols, y) passes the off-by-one guard and writes the cell of block (0, y + 1) (WAW between
// blocks).
#include <cstdint>

__global__ void grid_arg_racy(float *out, const float *in, int cols) {
    if (blockIdx.x > cols) {
        return;
    }
    int64_t cell = (int64_t)blockIdx.y * cols + blockIdx.x;
    out[cell * blockDim.x + threadIdx.x] = 2.0f * in[cell * blockDim.x + threadIdx.x];
}

void launch_grid_arg_racy(float *out, const float *in, const int64_t cols, const int64_t rows, cudaStream_t s) {
    const dim3 blocks(cols + 1, rows, 1);
    grid_arg_racy<<<blocks, 128, 0, s>>>(out, in, cols);
}
