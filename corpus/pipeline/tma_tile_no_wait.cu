//--blockDim=64 --gridDim=1
// tma_tile without the wait on the mbarrier: threads read the tile while the TMA load may
// still be writing it.
#define ROWS 16
#define COLS 16

// The host's CUtensorMap, passed by value as a __grid_constant__ parameter.
struct __align__(64) TensorMap { unsigned long long opaque[16]; };

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void mbar_init(unsigned long long *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(bar)), "r"(count) : "memory");
}

__device__ void mbar_expect_arrive(unsigned long long *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(bar)), "r"(bytes) : "memory");
}

__device__ void mbar_wait(unsigned long long *bar, unsigned phase)
{
    asm volatile("{\n"
                 " .reg .pred P;\n"
                 "WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1;\n"
                 " @P bra DONE;\n"
                 " bra WAIT;\n"
                 "DONE:\n"
                 "}" :: "r"(smem(bar)), "r"(phase) : "memory");
}

// One box of the tensor at column x, row y into dst.
__device__ void tma_load_2d(float *dst, const TensorMap *map, int x, int y, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(bar)) : "memory");
}

__global__ void tma_tile_no_wait(const __grid_constant__ TensorMap map, float *out)
{
    __shared__ __align__(128) float tile[ROWS * COLS];
    __shared__ unsigned long long full;
    if (threadIdx.x == 0) {
        mbar_init(&full, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_expect_arrive(&full, ROWS * COLS * 4);
        tma_load_2d(tile, &map, 0, blockIdx.x * ROWS, &full);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x * 5) % (ROWS * COLS)];
}
