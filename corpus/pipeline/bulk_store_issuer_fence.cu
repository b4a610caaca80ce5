//--blockDim=64 --gridDim=1
// The issuing thread fences for everyone: both warps write the tile, the block syncs, and
// thread 0 runs fence.proxy.async.shared::cta and then issues the bulk store. The fence is
// cumulative: every write the barrier ordered before it is visible to the async proxy, so
// the copy reads the tile as written.
#define TILE 512

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_store_issuer_fence(const float *in, float *out)
{
    __shared__ __align__(128) float tile[TILE];
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = in[i] * 3.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out), "r"(smem(tile)), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
