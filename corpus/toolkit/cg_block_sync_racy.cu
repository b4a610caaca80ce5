//--blockDim=128 --gridDim=2
// Racy twin of cg_block_sync: the cg::sync(block) between the difference step and the mirrored
// read is missing, so d[THREADS - 1 - r] is read while another warp may still be writing it
// (read-after-write across warps). block.sync() still orders the first exchange. Fix: one
// block-wide barrier between the two statements.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128

__global__ void cg_block_sync_racy(const float *in, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float a[THREADS];
    __shared__ float d[THREADS];

    unsigned int r = block.thread_rank();
    a[r] = in[blockIdx.x * THREADS + r];
    block.sync();
    d[r] = a[(r + 1) % THREADS] - a[r];
    out[blockIdx.x * THREADS + r] = d[r] + d[THREADS - 1 - r];
}
