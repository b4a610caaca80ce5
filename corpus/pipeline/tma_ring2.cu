//--blockDim=64 --gridDim=1
// A 2-stage ring filled by TMA: warp 0's lane 0 loads each 16x16 float tile of a 2-D tensor
// through a tensor map the host encoded (its box is not visible here), completing on the
// stage's "full" mbarrier with the bytes it announced; warp 1 waits for the tile, reads it and
// releases the stage on its "empty" mbarrier (32 arrivals, one per consumer thread).
#define STAGES 2
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

__device__ void mbar_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(bar)) : "memory");
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

__global__ void tma_ring2(const __grid_constant__ TensorMap map, float *out, int iters)
{
    __shared__ __align__(128) float tile[STAGES][ROWS * COLS];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 32);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            int s = k % STAGES;
            unsigned phase = (k / STAGES) % 2;
            if (lane == 0) {
                mbar_wait(&empty[s], phase ^ 1);
                mbar_expect_arrive(&full[s], ROWS * COLS * 4);
                tma_load_2d(tile[s], &map, 0, k * ROWS, &full[s]);
            }
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            int s = k % STAGES;
            unsigned phase = (k / STAGES) % 2;
            mbar_wait(&full[s], phase);
            float acc = 0;
            for (int i = lane; i < ROWS * COLS; i += 32)
                acc += tile[s][i];
            out[k * 32 + lane] = acc;
            mbar_arrive(&empty[s]);
        }
    }
}
