//--blockDim=128 --gridDim=8
// Sorts 256 key/value pairs per block with a bitonic network in shared memory.
// Every thread owns two slots. The sort phase builds bitonic sequences of
// growing size; the merge phase of each size halves the comparison stride
// until it reaches 1. A barrier separates every compare-exchange step from the
// next. Keys of each block end up ascending, or descending for odd blocks (so
// that a following global merge can pair them up).
#define N 256
#define HALF (N / 2)

__device__ void compare_exchange(unsigned int *keys, unsigned int *vals, int a, int b, bool up)
{
    unsigned int ka = keys[a];
    unsigned int kb = keys[b];
    if ((ka > kb) == up) {
        unsigned int va = vals[a];
        unsigned int vb = vals[b];
        keys[a] = kb;
        keys[b] = ka;
        vals[a] = vb;
        vals[b] = va;
    }
}

__global__ void bitonic_merge(const unsigned int *keys_in, const unsigned int *vals_in,
                              unsigned int *keys_out, unsigned int *vals_out)
{
    __shared__ unsigned int keys[N];
    __shared__ unsigned int vals[N];

    int tid = threadIdx.x;
    int base = blockIdx.x * N;
    bool ascending = (blockIdx.x & 1) == 0;

    keys[tid] = keys_in[base + tid];
    vals[tid] = vals_in[base + tid];
    keys[tid + HALF] = keys_in[base + tid + HALF];
    vals[tid + HALF] = vals_in[base + tid + HALF];

    // Sort phase: sizes 2, 4, ..., N / 2.
    for (int size = 2; size < N; size <<= 1) {
        // Sequences of `size` elements alternate direction.
        bool dir = ascending ^ ((tid & (size / 2)) != 0);
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            int pos = 2 * tid - (tid & (stride - 1));
            compare_exchange(keys, vals, pos, pos + stride, dir);
        }
    }

    // Merge phase for the whole block.
    for (int stride = HALF; stride > 0; stride >>= 1) {
        __syncthreads();
        int pos = 2 * tid - (tid & (stride - 1));
        compare_exchange(keys, vals, pos, pos + stride, ascending);
    }
    __syncthreads();

    keys_out[base + tid] = keys[tid];
    vals_out[base + tid] = vals[tid];
    keys_out[base + tid + HALF] = keys[tid + HALF];
    vals_out[base + tid + HALF] = vals[tid + HALF];
}
