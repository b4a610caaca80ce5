//--blockDim=64 --gridDim=1
// A helper that returns from inside a branch (`if (swizzled) { ...; return a; }`), as tile
// libraries write their `if constexpr` address functions: the value returned is the one the
// branch computed. Each thread stages four words at a swizzled address,
// and each thread reads back a word another thread staged. Without the barrier the read
// may come before the other thread's store.
#include <cstdint>

__device__ uint32_t slot(uint32_t base, unsigned word, bool swizzled) {
    if (swizzled) {
        const uint32_t addr = base + 4 * word;
        return addr ^ (((addr % 512) >> 7) << 4);
    }
    return base + 4 * word;
}

__global__ void early_return_swizzle_racy(const float *in, float *out) {
    __shared__ __align__(512) float staged[256];
    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(&staged[0]));
    for (int i = 0; i < 4; ++i) {
        unsigned word = i * 64 + threadIdx.x;
        float v = in[word];
        asm volatile("st.shared.f32 [%0], %1;" : : "r"(slot(base, word, true)), "f"(v));
    }
    out[threadIdx.x] = staged[(threadIdx.x * 4 + 5) % 256];
}
