//--blockDim=96 --gridDim=1
// ring4_named with the consumers' release stripped: warps 1 and 2 never arrive on the stage's
// "empty" mbarrier (count 64), so the producer's wait before refilling a stage (iteration
// STAGES on) never passes.
#define STAGES 4
#define TILE 256

__device__ __forceinline__ unsigned to_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void bar_init(unsigned long long *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(to_smem(bar)), "r"(count) : "memory");
}

__device__ void bar_arrive_tx(unsigned long long *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(to_smem(bar)), "r"(bytes) : "memory");
}

__device__ void bar_release(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(to_smem(bar)) : "memory");
}

__device__ void bar_wait_parity(unsigned long long *bar, unsigned parity)
{
    asm volatile("{\n"
                 " .reg .pred done;\n"
                 "RETRY:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 " @!done bra RETRY;\n"
                 "}" :: "r"(to_smem(bar)), "r"(parity) : "memory");
}

__device__ void tma_1d(float *dst, const float *src, unsigned bytes, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(to_smem(dst)), "l"(src), "r"(bytes), "r"(to_smem(bar)) : "memory");
}

__device__ void consumers_sync(int id)
{
    asm volatile("bar.sync %0, 64;" :: "r"(id) : "memory");
}

__global__ void ring4_named_no_release(const float *in, float *out, int iters)
{
    __shared__ __align__(128) float stage[STAGES][TILE];
    __shared__ float partial[2][32];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            bar_init(&full[s], 1);
            bar_init(&empty[s], 64);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (warp == 0) {
        if (lane == 0) {
            for (int k = 0; k < iters; ++k) {
                int s = k % STAGES;
                bar_wait_parity(&empty[s], ((k / STAGES) & 1) ^ 1);
                bar_arrive_tx(&full[s], TILE * sizeof(float));
                tma_1d(stage[s], in + k * TILE, TILE * sizeof(float), &full[s]);
            }
        }
    } else {
        int c = warp - 1;
        for (int k = 0; k < iters; ++k) {
            int s = k % STAGES;
            bar_wait_parity(&full[s], (k / STAGES) & 1);
            float acc = 0;
            for (int i = c * (TILE / 2) + lane; i < (c + 1) * (TILE / 2); i += 32)
                acc += stage[s][i];
            partial[c][lane] = acc;
            consumers_sync(1);
            if (c == 0)
                out[k * 32 + lane] = partial[0][lane] + partial[1][lane];
            consumers_sync(2);
        }
    }
}
