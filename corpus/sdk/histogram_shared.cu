//--blockDim=128 --gridDim=2
// Per-block histogram in shared memory with shared atomics, merged into the global
// histogram with global atomics once the block is done.
#define BINS 32

__global__ void histogram_shared(const unsigned int *data, unsigned int *hist, int n)
{
    __shared__ unsigned int bins[BINS];
    int t = threadIdx.x;
    if (t < BINS) {
        bins[t] = 0;
    }
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        unsigned int value = data[i];
        atomicAdd(&bins[value % BINS], 1u);
    }
    __syncthreads();

    if (t < BINS) {
        atomicAdd(&hist[t], bins[t]);
    }
}
