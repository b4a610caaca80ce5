//--blockDim=128 --gridDim=2
// cub::BlockScan from the CUDA toolkit (default BLOCK_SCAN_RAKING: every thread writes its
// partial to a padded raking grid, __syncthreads(), one warp scans the grid, __syncthreads(),
// every thread reads its prefix and the block aggregate back). Exclusive prefix sum of one
// flag per thread (compaction offsets); every thread stores to its own slot. One use of the
// temp storage: race-free, no barrier needed in the user's code.
#include <cub/block/block_scan.cuh>

#define THREADS 128

__global__ void cub_block_scan(const float *in, int *offsets, int *kept_count)
{
    typedef cub::BlockScan<int, THREADS> BlockScanT;
    __shared__ typename BlockScanT::TempStorage temp;

    int g = blockIdx.x * THREADS + threadIdx.x;
    int keep = in[g] > 0.0f ? 1 : 0;
    int offset;
    int block_kept;
    BlockScanT(temp).ExclusiveSum(keep, offset, block_kept);
    offsets[g] = keep ? offset : -1;
    if (threadIdx.x == THREADS - 1) {
        kept_count[blockIdx.x] = block_kept;
    }
}
