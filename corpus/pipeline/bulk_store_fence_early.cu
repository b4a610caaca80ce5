//--blockDim=64 --gridDim=1
// bulk_store_fenced with the fence in the wrong place: each thread fences before it writes
// the tile, so its writes are still not ordered before the async proxy's reads of them.
#define TILE 512

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_store_fence_early(const float *in, float *out)
{
    __shared__ __align__(128) float tile[TILE];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = in[i] + 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out), "r"(smem(tile)), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
