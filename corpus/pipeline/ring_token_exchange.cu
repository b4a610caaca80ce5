//--blockDim=96 --gridDim=1
// A 2-stage ring whose two consumer warps exchange partial sums every iteration through an
// mbarrier of their own: each thread publishes its sum, arrives on `swap` keeping the token and
// spins on test_wait with it, reads its neighbour's sum, and waits once more before the next
// iteration overwrites it. The spin loops sit inside the consumers' role loop.
#define STAGES 2
#define ITERS 4
#define CT 64

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void wait_parity(unsigned long long *b, unsigned parity)
{
    asm volatile("{\n"
                 " .reg .pred ok;\n"
                 "SPIN:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n"
                 " @!ok bra SPIN;\n"
                 "}" :: "r"(smem(b)), "r"(parity) : "memory");
}

__device__ void exchange_point(long *swap)
{
    long token = __nvvm_mbarrier_arrive(swap);
    while (!__nvvm_mbarrier_test_wait(swap, token)) {
    }
}

__global__ void ring_token_exchange(const float *in, float *out)
{
    __shared__ __align__(128) float stage[STAGES][CT];
    __shared__ float sums[CT];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    __shared__ long swap;
    int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&full[s])), "r"(32) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(&empty[s])), "r"(CT) : "memory");
        }
        __nvvm_mbarrier_init(&swap, CT);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (warp == 0) {
        for (int k = 0; k < ITERS; ++k) {
            int s = k % STAGES;
            wait_parity(&empty[s], ((k / STAGES) & 1) ^ 1);
            for (int i = threadIdx.x; i < CT; i += 32)
                stage[s][i] = in[k * CT + i];
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&full[s])) : "memory");
        }
    } else {
        int c = threadIdx.x - 32;
        for (int k = 0; k < ITERS; ++k) {
            int s = k % STAGES;
            wait_parity(&full[s], (k / STAGES) & 1);
            float mine = stage[s][c] * 2.0f;
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(&empty[s])) : "memory");
            sums[c] = mine;
            exchange_point(&swap);
            out[k * CT + c] = sums[(c + 1) % CT];
            exchange_point(&swap);
        }
    }
}
