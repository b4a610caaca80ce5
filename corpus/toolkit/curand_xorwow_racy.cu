//--blockDim=128 --gridDim=2
// Racy twin of curand_xorwow: no barrier between staging each thread's draw in shared memory
// and reading the two neighbours' draws. Two read-after-write pairs (the left and the right
// neighbour), across warps at the ends of each warp and within a warp otherwise. Fix: one
// __syncthreads() after the store.
#include <curand_kernel.h>

#define THREADS 128

__global__ void curand_xorwow_racy(unsigned long long seed, float *out)
{
    __shared__ float u[THREADS];
    int g = blockIdx.x * THREADS + threadIdx.x;
    curandState state;
    curand_init(seed, g, 0, &state);
    u[threadIdx.x] = curand_uniform(&state);
    float left = u[(threadIdx.x + THREADS - 1) % THREADS];
    float right = u[(threadIdx.x + 1) % THREADS];
    out[g] = (left + u[threadIdx.x] + right) / 3.0f;
}
