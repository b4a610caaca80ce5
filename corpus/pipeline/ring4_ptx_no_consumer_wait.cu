//--blockDim=160 --gridDim=1
// A 4-stage TMA ring written in inline PTX only (no helpers; the address through addr()), with
// the consumers' wait on "full" stripped: warps 1-4 read each stage before its copy lands. fix
// writes the wait as a try_wait.parity retry loop with the ring's wrap count as the parity.
#define STAGES 4
#define CONSUMERS 128
#define TILE (CONSUMERS * 4)

__device__ __forceinline__ unsigned addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void ring4_ptx_no_consumer_wait(const float *in, float *out, int iters)
{
    __shared__ __align__(128) float stage[STAGES][TILE];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int st = 0; st < STAGES; ++st) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr(&full[st])), "r"(1) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr(&empty[st])), "r"(CONSUMERS) : "memory");
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            for (int k = 0; k < iters; ++k) {
                int st = k % STAGES;
                asm volatile("{\n .reg .pred ok;\nAGAIN:\n mbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n @!ok bra AGAIN;\n}" :: "r"(addr(&empty[st])), "r"(((k / STAGES) & 1) ^ 1) : "memory");
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(addr(&full[st])), "r"(TILE * 4) : "memory");
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                             :: "r"(addr(stage[st])), "l"(in + k * TILE), "r"(TILE * 4), "r"(addr(&full[st])) : "memory");
            }
        }
    } else {
        int c = threadIdx.x - 32;
        for (int k = 0; k < iters; ++k) {
            int st = k % STAGES;
            float acc = 0;
            for (int i = c; i < TILE; i += CONSUMERS)
                acc += stage[st][i];
            out[k * CONSUMERS + c] = acc;
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr(&empty[st])) : "memory");
        }
    }
}
