// A grid-stride loop over a 64-bit element count, launched from the host with a literal block
// of 256 threads: each element has one owner in the grid. The index is a 64-bit integer, so a
// check with full wrap-around finds two blocks meeting at i = 2^62 (4 * 2^62 bytes wraps to the
// same address); no allocation comes near 2^40 elements, and autosync assumes indices below
// that (--index-wraparound drops the assumption).
#include <stdint.h>

__global__ void scale_i64(const float *x, float *y, float a, int64_t n) {
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t step = (int64_t)blockDim.x * gridDim.x;
    for (int64_t i = first; i < n; i += step) {
        y[i] = a * x[i];
    }
}

void scale(const float *x, float *y, float a, int64_t n, cudaStream_t s) {
    const int64_t blocks = (n + 255) / 256;
    scale_i64<<<blocks < 65535 ? blocks : 65535, 256, 0, s>>>(x, y, a, n);
}
