//--blockDim=128 --gridDim=4
// A kernel whose body exists only from sm_90 on: below it, as a library writes it, the
// kernel prints and traps. Read for sm_80 every thread traps whatever the data, so the
// kernel never completes; it is an error (always-traps), never clean.
#include <cstdio>

__global__ void arch_gated_trap(const float *in, float *out, int n)
{
#if __CUDA_ARCH__ >= 900
    __shared__ float tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[127 - threadIdx.x];
#else
    if (threadIdx.x == 0)
        printf("arch_gated_trap needs sm_90 (built for %d)\n", __CUDA_ARCH__);
    __trap();
#endif
}
