//--blockDim=128 --gridDim=2
// Racy twin of cub_reuse_sync: the union of BlockScan's and BlockReduce's TempStorage is
// reused without the __syncthreads() CUB documents. After CUB's last internal barrier in
// ExclusiveSum(), thread 0 reads its prefix from raking grid word 0 (bytes 16-19 of the
// union); at the start of Sum(), lane 0 of warp 3 (thread 96) stores its warp total to
// warp_aggregates[3], the same bytes: a write-after-read race, reported at the two calls.
// Fix: one __syncthreads() between the two calls.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128

__global__ void cub_reuse_nosync(const int *counts, int *offsets, int *block_sums)
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
    int weighted = ReduceT(temp.reduce).Sum(c * before);
    offsets[g] = before;
    if (threadIdx.x == 0) {
        block_sums[blockIdx.x] = weighted;
    }
}
