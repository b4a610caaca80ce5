//--blockDim=32 --gridDim=1
// bulk_store2 without lane 0's cp.async.bulk.wait_group.read: the warp writes a buffer again
// two iterations later while the bulk store issued from it may still be reading it.
#define TILE 256

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void bulk_store(float *dst, const float *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(dst), "r"(smem(src)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__global__ void bulk_store2_reuse(const float *in, float *out, int iters)
{
    __shared__ __align__(128) float buf[2][TILE];
    int lane = threadIdx.x % 32;
    for (int k = 0; k < iters; ++k) {
        int b = k % 2;
        __syncwarp();
        for (int i = lane; i < TILE; i += 32)
            buf[b][i] = in[k * TILE + i] * 2.0f;
        // The bulk copy reads through the async proxy: make the writes visible to it.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncwarp();
        if (lane == 0)
            bulk_store(out + k * TILE, buf[b], TILE * 4);
    }
    if (lane == 0)
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
