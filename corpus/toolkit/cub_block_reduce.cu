//--blockDim=128 --gridDim=2
// cub::BlockReduce from the CUDA toolkit (default algorithm: warp reductions by shuffle, one
// partial per warp through shared memory, a __syncthreads() inside CUB, thread 0 combines).
// Each thread contributes two values; the block total is only valid in thread 0, which is
// the only thread that uses it. One use of the temp storage: race-free, no barrier needed.
#include <cub/block/block_reduce.cuh>

#define THREADS 128
#define ITEMS 2

__global__ void cub_block_reduce(const int *in, int *block_sums)
{
    typedef cub::BlockReduce<int, THREADS> BlockReduceT;
    __shared__ typename BlockReduceT::TempStorage temp;

    int base = blockIdx.x * THREADS * ITEMS;
    int vals[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        int x = in[base + i * THREADS + threadIdx.x];
        vals[i] = x * x;
    }
    int total = BlockReduceT(temp).Sum(vals);
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = total;
    }
}
