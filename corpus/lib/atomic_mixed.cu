//--blockDim=128 --gridDim=4
// Block-local histogram with shared-memory atomics, merged into a global histogram. The
// atomics do not race with each other, but the merge reads the shared bins with a plain load
// while other threads may still be adding to them: the barrier between the atomicAdd and
// the read is missing.

#define BINS 32

__global__ void atomic_mixed(const unsigned int *keys, int *hist)
{
    __shared__ int bins[BINS];
    int t = threadIdx.x;

    if (t < BINS) {
        bins[t] = 0;
    }
    __syncthreads();

    unsigned int k = keys[blockIdx.x * 128 + t] % BINS;
    atomicAdd(&bins[k], 1);

    if (t < BINS) {
        atomicAdd(&hist[t], bins[t]);
    }
}
