//--blockDim=64 --gridDim=2
// cuRAND device API with the counter-based Philox4_32_10 generator: curand_init sets key and
// counter (no tables, no loops), curand_uniform4 returns four floats per call. Each thread
// stages its float4 in shared memory and, after the barrier, combines the draws of the thread
// mirrored across the block. The barrier is needed: race-free.
#include <curand_kernel.h>

#define THREADS 64

__global__ void curand_philox(unsigned long long seed, float *out)
{
    __shared__ float4 draws[THREADS];
    int g = blockIdx.x * THREADS + threadIdx.x;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, g, 0, &state);
    draws[threadIdx.x] = curand_uniform4(&state);
    __syncthreads();
    float4 m = draws[THREADS - 1 - threadIdx.x];
    out[g] = m.x * m.y + m.z * m.w;
}
