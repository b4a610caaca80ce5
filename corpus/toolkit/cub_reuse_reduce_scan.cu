//--blockDim=128 --gridDim=2
// The other order, also without a barrier: BlockReduce, then BlockScan in the same union.
// CUB's documentation asks for a __syncthreads() here too, but for int and 128 threads the
// two layouts leave no cross-thread conflict: Sum() ends with thread 0 alone reading
// warp_aggregates[1..3] (bytes 8-19 of the union), and ExclusiveSum() starts with thread t
// writing raking grid word t + t/4 (bytes 16 + 4(t + t/4)), so the only overlap is bytes 16-19,
// read and then written by thread 0 itself; every later access of the scan follows its first
// internal barrier. Race-free as compiled (CCCL 2.8 layouts): a precision test, no barrier
// must be inserted.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128

__global__ void cub_reuse_reduce_scan(const int *in, int *prefix, int *block_sums)
{
    typedef cub::BlockReduce<int, THREADS> ReduceT;
    typedef cub::BlockScan<int, THREADS> ScanT;
    __shared__ union {
        typename ReduceT::TempStorage reduce;
        typename ScanT::TempStorage scan;
    } temp;

    int g = blockIdx.x * THREADS + threadIdx.x;
    int v = in[g];
    int total = ReduceT(temp.reduce).Sum(v);
    int before;
    ScanT(temp.scan).ExclusiveSum(v, before);
    prefix[g] = before;
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = total;
    }
}
