//--blockDim=128 --gridDim=2
// Two neighbour exchanges separated by cooperative-groups block synchronization.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define N 128

__global__ void coop_shift(const int *in, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * N + t];
    cg::this_thread_block().sync();
    int left = s[(t + N - 1) % N];
    cg::this_thread_block().sync();
    s[t] = left + s[t];
    cg::this_thread_block().sync();
    out[blockIdx.x * N + t] = s[(t + 1) % N];
}
