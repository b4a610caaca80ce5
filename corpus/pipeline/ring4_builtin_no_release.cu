//--blockDim=160 --gridDim=1
// A 4-stage TMA ring whose mbarriers are initialized with Clang's __nvvm_mbarrier_init builtin
// (waits, expect_tx and copies in inline PTX), with the consumers' release stripped: the
// producer's wait before refilling a stage never passes. fix writes the release with the
// builtin the file uses, __nvvm_mbarrier_arrive.
#define STAGES 4
#define CONSUMERS 128
#define TILE (CONSUMERS * 4)

__device__ __forceinline__ unsigned addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void ring4_builtin_no_release(const float *in, float *out, int iters)
{
    __shared__ __align__(128) float stage[STAGES][TILE];
    __shared__ long full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int st = 0; st < STAGES; ++st) {
            __nvvm_mbarrier_init(&full[st], 1);
            __nvvm_mbarrier_init(&empty[st], CONSUMERS);
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
            asm volatile("{\n .reg .pred ok;\nAGAIN:\n mbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n @!ok bra AGAIN;\n}" :: "r"(addr(&full[st])), "r"((k / STAGES) & 1) : "memory");
            float acc = 0;
            for (int i = c; i < TILE; i += CONSUMERS)
                acc += stage[st][i];
            out[k * CONSUMERS + c] = acc;
        }
    }
}
