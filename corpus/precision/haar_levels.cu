//--blockDim=64 --gridDim=8
// Multi-level Haar decomposition of 128 values per block. Each level halves the
// number of active threads; the counters of the level (how many threads are
// active, how far apart a pair is) change only inside the active threads'
// branch, so they differ between threads and have no closed form in the loop
// counter, yet the active threads always agree on them.
__global__ void haar_levels(const float *in, float *detail, float *coarse, unsigned int levels)
{
    __shared__ float buf[128];
    unsigned int tid = threadIdx.x;
    unsigned int base = blockIdx.x * 128;
    buf[2 * tid] = in[base + 2 * tid];
    buf[2 * tid + 1] = in[base + 2 * tid + 1];
    __syncthreads();

    unsigned int active = blockDim.x;
    unsigned int stride = 1;
    for (unsigned int level = 0; level < levels; ++level) {
        if (tid < active) {
            unsigned int left = 2 * stride * tid;
            float a = buf[left];
            float b = buf[left + stride];
            detail[base + active + tid] = (a - b) * 0.5f;
            buf[left] = (a + b) * 0.5f;
            active >>= 1;
            stride <<= 1;
        }
        __syncthreads();
    }
    if (tid == 0) {
        coarse[blockIdx.x] = buf[0];
    }
}
