//--blockDim=64 --gridDim=1
// Half-precision values built with `__half`'s converting constructor (`__half(float)`), whose
// body is in the toolkit's precompiled CUDA prelude and names the class through its injected
// class name: staged in a shared tile and read back mirrored after a barrier. Race-free.
#include <cuda_fp16.h>

__global__ void half_tile_mirror(const float *in, __half *out) {
  __shared__ __half tile[64];
  tile[threadIdx.x] = __half(in[threadIdx.x] * 0.5f);
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
