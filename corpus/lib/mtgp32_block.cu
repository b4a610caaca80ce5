//--blockDim=256 --gridDim=4
// Every thread of a 256-thread block draws from the block's shared MTGP32 state (cuRAND's
// contract: the whole block calls it together), stages the draw in shared memory, and after the
// barrier jitters one element of its row with a neighbour's draw. Race-free: the generator
// synchronizes the block inside each call, and the windows of state words the threads read and
// write do not overlap for up to 256 threads.
#include <curand_kernel.h>

#define THREADS 256
#define WIDTH 1024

__global__ void mtgp32_block(curandStateMtgp32_t *states, float *rows) {
  curandStateMtgp32_t *st = &states[blockIdx.x];
  __shared__ float jitter[THREADS];
  jitter[threadIdx.x] = curand_uniform(st);
  __syncthreads();
  float j = jitter[THREADS - 1 - threadIdx.x];
  rows[blockIdx.x * WIDTH + threadIdx.x] *= 1.0f + 0.01f * j;
}
