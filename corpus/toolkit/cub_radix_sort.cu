//--blockDim=128 --gridDim=2
// cub::BlockRadixSort on keys only: 128 threads x 4 keys, sorted by their low 8 bits (two
// 4-bit passes of BlockRadixRank's shared digit counters and raking scan, then a scatter
// through BlockExchange). Many phases separated by CUB's own __syncthreads(); one use of the
// temp storage, so the user's code needs no barrier: race-free. The sorted keys come back in
// a blocked arrangement and each thread writes its own four.
#include <cub/block/block_radix_sort.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

__global__ void cub_radix_sort(const unsigned int *in, unsigned int *out)
{
    typedef cub::BlockRadixSort<unsigned int, THREADS, ITEMS> SortT;
    __shared__ typename SortT::TempStorage temp;

    unsigned int keys[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        keys[i] = in[blockIdx.x * TILE + threadIdx.x * ITEMS + i];
    }
    SortT(temp).Sort(keys, 0, 8);
    for (int i = 0; i < ITEMS; ++i) {
        out[blockIdx.x * TILE + threadIdx.x * ITEMS + i] = keys[i];
    }
}
