//--blockDim=128 --gridDim=4
// A bounds check wrapped around a cooperative-groups block barrier: only the threads with an
// element call cg::sync(block), so for any n that is not a multiple of 128 part of the
// block never reaches it. Barrier divergence (undefined behaviour), whatever the data
// accesses do; with the barrier reached by everyone the kernel would be race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_divergent_sync(const int *in, int *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    __shared__ int buf[128];
    unsigned int r = block.thread_rank();
    unsigned int g = blockIdx.x * block.size() + r;

    if (g < n) {
        buf[r] = in[g];
        cg::sync(block);
        out[g] = buf[r] + buf[r ^ 1];
    }
}
