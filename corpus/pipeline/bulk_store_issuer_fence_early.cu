//--blockDim=64 --gridDim=1
// bulk_store_issuer_fence with thread 0's fence before the barrier: it covers thread 0's own
// writes, but the other threads' writes are ordered before the copy only by the barrier that
// comes after the fence, so the async proxy may not see them.
#define TILE 512

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_store_issuer_fence_early(const float *in, float *out)
{
    __shared__ __align__(128) float tile[TILE];
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = in[i] * 3.0f;
    if (threadIdx.x == 0)
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out), "r"(smem(tile)), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
