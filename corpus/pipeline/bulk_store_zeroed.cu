//--blockDim=64 --gridDim=1
// A tile zeroed without a fence, then filled and fenced: the bulk store reads only the
// filled values, which each thread fenced after writing them, so the unfenced zeroing (a
// write the fill overwrites before the copy) is not what the async proxy reads. Clean.
#define TILE 512

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void bulk_store_zeroed(const float *in, float *out)
{
    __shared__ __align__(128) float tile[TILE];
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] = 0.0f;
    __syncthreads();
    for (int i = threadIdx.x; i < TILE; i += blockDim.x)
        tile[i] += in[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                     :: "l"(out), "r"(smem(tile)), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
