//--blockDim=128 --gridDim=1
// One warpgroup (128 threads) multiplies a 64x64 bf16 tile of A by a 64x64 tile of B with
// wgmma.mma_async, K = 64 in four k16 steps, both operands in shared memory in the 128-byte
// swizzled K-major layout, read through matrix descriptors built from the tiles' addresses.
// Each iteration the threads store the tiles, fence the async proxy, meet at a barrier, issue
// the products, wait for them to retire and meet again before the next tiles overwrite these.
#include "wgmma_tile.h"

__global__ void wgmma_tile(const unsigned short *a, const unsigned short *b, float *out, int iters)
{
    __shared__ __align__(1024) unsigned short As[TILE];
    __shared__ __align__(1024) unsigned short Bs[TILE];
    float d[32];
    for (int i = 0; i < 32; ++i)
        d[i] = 0.0f;
    int tid = threadIdx.x;
    for (int t = 0; t < iters; ++t) {
        for (int i = tid; i < TILE; i += 128) {
            As[i] = a[t * TILE + i];
            Bs[i] = b[t * TILE + i];
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        unsigned long long da = descriptor(As), db = descriptor(Bs);
        for (int k = 0; k < 4; ++k)
            mma_64x64x16(d, da + ((k * 32) >> 4), db + ((k * 32) >> 4));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();
    }
    for (int i = 0; i < 32; ++i)
        out[(blockIdx.x * 128 + tid) * 32 + i] = d[i];
}
