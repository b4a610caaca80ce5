//--blockDim=128 --gridDim=1
// ldmatrix_swizzled with its first barrier weakened to __syncwarp: a warp's ldmatrix reads
// its neighbour warp's rows, which that warp may not have written yet (RAW).
#include <cstdint>

__device__ uint32_t swizzle(uint32_t addr) { return addr ^ (((addr >> 7) & 1) << 4); }

__device__ uint32_t row_address(const unsigned short *tile, unsigned lane) {
    unsigned row = lane % 8 + 8 * ((lane / 8) % 2), half = lane / 16;
    uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    return swizzle(base + (row * 16 + half * 8) * 2);
}

__global__ void ldmatrix_swizzled_racy(unsigned short *out) {
    __shared__ __align__(128) unsigned short staged[4][16 * 16];
    __shared__ __align__(128) unsigned short results[4][16 * 16];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int i = 0; i < 8; ++i)
        staged[warp][lane * 8 + i] = lane * 8 + i;
    __syncwarp();
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(row_address(staged[(warp + 1) % 4], lane)));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
                 :
                 : "r"(row_address(results[warp], lane)), "r"(r0), "r"(r1), "r"(r2), "r"(r3));
    __syncthreads();
    for (int i = 0; i < 8; ++i)
        out[threadIdx.x * 8 + i] = results[(warp + 3) % 4][lane * 8 + i];
}
