//--blockDim=128 --gridDim=2
// One shared allocation for two CUB collectives: a union of BlockScan's and BlockReduce's
// TempStorage, used one after the other. CUB documents that a __syncthreads() is required
// before temp storage is reused: here thread 0's last read in ExclusiveSum() (its prefix, raking
// grid word 0, bytes 16-19 of the union) and warp 3's lane 0 storing its warp total at the
// start of Sum() (warp_aggregates[3], the same bytes) would race. The barrier between the two
// calls orders them: race-free, the barrier is needed.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128

__global__ void cub_reuse_sync(const int *counts, int *offsets, int *block_sums)
{
    typedef cub::BlockScan<int, THREADS> ScanT;
    typedef cub::BlockReduce<int, THREADS> ReduceT;
    __shared__ union {
        typename ScanT::TempStorage scan;
        typename ReduceT::TempStorage reduce;
    } temp;

    int g = blockIdx.x * THREADS + threadIdx.x;
    int c = counts[g];
    int before;
    ScanT(temp.scan).ExclusiveSum(c, before);
    __syncthreads();
    int weighted = ReduceT(temp.reduce).Sum(c * before);
    offsets[g] = before;
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = weighted;
    }
}
