// Racy twin of grid_bytes (a byte mask rather than a join): the loop steps by one block's
// thread count instead of the grid's, from the thread's global index, so block b's first byte is block 0's byte in iteration b: two
// blocks write `out[e]` (a race between blocks, which no barrier fixes). The stride rule of the
// injectivity test does not apply (the entry values are not below the step).
#include <stdint.h>

__global__ void mask_bytes_racy(const uint8_t *in, uint8_t *out, uint8_t key, int64_t total) {
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += blockDim.x) {
        out[e] = in[e] ^ key;
    }
}

void mask(const uint8_t *in, uint8_t *out, uint8_t key, int64_t total, cudaStream_t s) {
    mask_bytes_racy<<<1024, 128, 0, s>>>(in, out, key, total);
}
