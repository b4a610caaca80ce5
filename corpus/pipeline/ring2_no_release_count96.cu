//--blockDim=64 --gridDim=1
// ring2_no_release whose "empty" mbarriers also expect 96 arrivals per phase: the 32 consumer
// threads release each stage twice in 4 iterations, so no placement of the missing release
// completes a phase the producer waits for; fix reports it unfixable and writes nothing.
#define STAGES 2
#define TILE 256

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

__device__ void bulk_load(float *dst, const float *src, unsigned bytes, unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}

__global__ void ring2_no_release_count96(const float *in, float *out, int iters)
{
    __shared__ __align__(128) float tile[STAGES][TILE];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], 96);
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
                mbar_expect_arrive(&full[s], TILE * 4);
                bulk_load(tile[s], in + k * TILE, TILE * 4, &full[s]);
            }
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            int s = k % STAGES;
            unsigned phase = (k / STAGES) % 2;
            mbar_wait(&full[s], phase);
            float acc = 0;
            for (int i = lane; i < TILE; i += 32)
                acc += tile[s][i];
            out[k * 32 + lane] = acc;
        }
    }
}
