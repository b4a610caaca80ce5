//--blockDim=128 --gridDim=2
// cuRAND device API from the CUDA toolkit (<curand_kernel.h>), default XORWOW generator:
// curand_init(seed, subsequence = global thread index, 0) skips ahead through the
// precalculated matrices in global memory (a loop whose trip count depends on the thread),
// then curand_uniform draws one value. Draws are staged through shared memory and each
// thread averages its own with its two neighbours' (a ring). The barrier is needed: race-free.
#include <curand_kernel.h>

#define THREADS 128

__global__ void curand_xorwow(unsigned long long seed, float *out)
{
    __shared__ float u[THREADS];
    int g = blockIdx.x * THREADS + threadIdx.x;
    curandState state;
    curand_init(seed, g, 0, &state);
    u[threadIdx.x] = curand_uniform(&state);
    __syncthreads();
    float left = u[(threadIdx.x + THREADS - 1) % THREADS];
    float right = u[(threadIdx.x + 1) % THREADS];
    out[g] = (left + u[threadIdx.x] + right) / 3.0f;
}
