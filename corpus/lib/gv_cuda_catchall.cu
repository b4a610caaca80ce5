//--blockDim=128 --gridDim=2
// Written in GPUVerify's dialect: only <cuda.h> is included, and the kernel uses cuRAND's
// device API and cooperative groups (`synchronize(g)`, the free function that dialect spells for
// `g.sync()`), which that verifier's <cuda.h> declares. autosync's shim declares them the same
// way; the real toolkit's <cuda.h> does not. Each thread draws into its own generator state and
// publishes the draw; the block synchronizes before reading a neighbour's. Race-free.
#include <cuda.h>

using namespace cooperative_groups;

__global__ void gv_cuda_catchall(curandState *states, float *out) {
  __shared__ float draw[128];
  thread_block block = this_thread_block();
  unsigned int t = block.thread_rank();
  curandState local = states[blockIdx.x * 128 + t];
  draw[t] = curand_uniform(&local);
  synchronize(block);
  out[blockIdx.x * 128 + t] = draw[(t + 1) % 128];
  states[blockIdx.x * 128 + t] = local;
}
