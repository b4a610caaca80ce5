//--blockDim=512 --gridDim=4
// mtgp32_block with 512 threads: cuRAND's MTGP32 serves at most 256 threads per block. With more,
// the state words a thread reads overlap the words other threads write in the same call, a race
// inside the generator that no barrier in the kernel can order.
#include <curand_kernel.h>

#define THREADS 512
#define WIDTH 1024

__global__ void mtgp32_oversize(curandStateMtgp32_t *states, float *rows) {
  curandStateMtgp32_t *st = &states[blockIdx.x];
  __shared__ float jitter[THREADS];
  jitter[threadIdx.x] = curand_uniform(st);
  __syncthreads();
  float j = jitter[THREADS - 1 - threadIdx.x];
  rows[blockIdx.x * WIDTH + threadIdx.x] *= 1.0f + 0.01f * j;
}
