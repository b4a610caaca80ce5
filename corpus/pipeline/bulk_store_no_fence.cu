//--blockDim=64 --gridDim=1
// A tile epilogue: both warps write a tile of shared memory, the block syncs, and thread 0
// stores the tile to global memory with one bulk copy. The bulk copy reads shared memory
// through the async proxy, and nothing here makes the generic-proxy writes visible to it:
// every writing thread needs fence.proxy.async.shared::cta between its writes and the
// barrier (CUTLASS's tma_store_fence()). Without it the copy may read stale data, although
// __syncthreads() orders the threads.
#define TILE 512

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_store_no_fence(const float *in, float *out)
{
    __shared__ __align__(128) float tile[TILE];
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
