//--blockDim=128 --gridDim=2
// Cooperative groups from the CUDA toolkit (<cooperative_groups.h>): the block handle from
// this_thread_block(), indices from thread_rank(), and two block-wide barriers written two
// ways, block.sync() and cg::sync(block) (both end in details::cta::sync(), i.e.
// __barrier_sync(0)). Neighbour differences staged through two shared arrays; both barriers
// are needed: race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128

__global__ void cg_block_sync(const float *in, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ float a[THREADS];
    __shared__ float d[THREADS];

    unsigned int r = block.thread_rank();
    a[r] = in[blockIdx.x * THREADS + r];
    block.sync();
    d[r] = a[(r + 1) % THREADS] - a[r];
    cg::sync(block);
    out[blockIdx.x * THREADS + r] = d[r] + d[THREADS - 1 - r];
}
