// The barrier-correct form of mixed_radix_racy: each thread splits its index into row
// coordinates, stores its element at the index rebuilt from them (its own slot), and reads its
// right neighbour within the row, which another thread stored: the barrier between the
// store and the read orders them, race-free. The stores alone never meet: the rebuilt index
// is the thread's own.
#include <stdint.h>

__global__ void rotate_rows(float *out, const float *in, const int64_t n0, const int64_t n1) {
    __shared__ float tile[256];
    const int64_t t = threadIdx.x;
    const int64_t c0 = t % n0;
    const int64_t c1 = (t / n0) % n1;
    const int64_t c2 = t / (n0 * n1);
    const int64_t row = (c2 * n1 + c1) * n0;
    tile[row + c0] = in[blockIdx.x * 256 + t];
    const int64_t next = row + (c0 + 1) % n0;
    __syncthreads();
    out[blockIdx.x * 256 + t] = tile[next & 255];
}

void rotate(float *out, const float *in, int64_t n0, int64_t n1, int blocks, cudaStream_t s) {
    rotate_rows<<<blocks, 256, 0, s>>>(out, in, n0, n1);
}
