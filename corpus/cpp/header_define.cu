//--blockDim=64 --gridDim=2 -DWIDTH=256
// Blocked-to-striped exchange through shared memory: each thread loads WIDTH / 64
// consecutive elements, then the block writes the row out with a stride of 64 (coalesced).
// WIDTH comes from the -D in the header line. With WIDTH 256 each thread writes elements
// other threads load, and the barrier between the two loops is missing: a race. With the
// file's fallback WIDTH 64 each thread would only touch its own element.
#ifndef WIDTH
#define WIDTH 64
#endif

#define THREADS 64
#define PER_THREAD (WIDTH / THREADS)

__global__ void header_define(const int *in, int *out)
{
    __shared__ int row[WIDTH];
    const int *src = in + blockIdx.x * WIDTH;
    int *dst = out + blockIdx.x * WIDTH;

#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        row[threadIdx.x * PER_THREAD + j] = src[threadIdx.x * PER_THREAD + j];
    }

#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        dst[j * THREADS + threadIdx.x] = row[j * THREADS + threadIdx.x];
    }
}
