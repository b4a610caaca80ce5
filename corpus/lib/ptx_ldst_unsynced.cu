//--blockDim=96 --gridDim=1
// Singe-style warp specialization with PTX memory instructions: warp 0 loads pairs of floats
// with ld.global.cg.v2 and stores them into a shared buffer with st.shared.v2; warps 1-2
// read single floats back with ld.shared. Shared addresses come from cvta.to.shared.
// This copy has no barriers at all: the reads race with the stores of the same iteration
// (read after write) and the next iteration's stores race with the reads (write after read).
// The fix is the full/empty pair of ptx_ldst_pipeline.cu: four statements.

__device__ __forceinline__ unsigned int shared_address(const void *p)
{
    unsigned int a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}

__device__ __forceinline__ float2 load_global_cg(const float2 *p)
{
    float2 v;
    asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
    return v;
}

__device__ __forceinline__ void store_shared(unsigned int addr, float2 v)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" :: "r"(addr), "f"(v.x), "f"(v.y) : "memory");
}

__device__ __forceinline__ float load_shared(unsigned int addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
    return v;
}

__global__ void ptx_ldst_unsynced(const float2 *in, float *out, int iters)
{
    __shared__ float2 buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int it = 0; it < iters; ++it) {
            float2 v = load_global_cg(&in[it * 32 + lane]);
            store_shared(shared_address(&buf[lane]), v);
        }
    } else {
        int c = threadIdx.x - 32;
        const float *flat = reinterpret_cast<const float *>(buf);
        for (int it = 0; it < iters; ++it) {
            out[it * 64 + c] = load_shared(shared_address(&flat[63 - c]));
        }
    }
}
