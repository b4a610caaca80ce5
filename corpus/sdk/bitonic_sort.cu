//--blockDim=64 --gridDim=2
// Bitonic sort of 64 keys per block in shared memory: in every step the lower
// thread of each compare pair orders the pair, then the block synchronizes.
#define KEYS 64

__global__ void bitonic_sort(int *data)
{
    __shared__ int key[KEYS];
    unsigned int t = threadIdx.x;
    unsigned int base = blockIdx.x * KEYS;
    key[t] = data[base + t];
    __syncthreads();

    for (unsigned int size = 2; size <= KEYS; size <<= 1) {
        for (unsigned int stride = size >> 1; stride > 0; stride >>= 1) {
            unsigned int partner = t ^ stride;
            if (partner > t) {
                int mine = key[t];
                int theirs = key[partner];
                bool ascending = (t & size) == 0;
                if ((mine > theirs) == ascending) {
                    key[t] = theirs;
                    key[partner] = mine;
                }
            }
            __syncthreads();
        }
    }
    data[base + t] = key[t];
}
