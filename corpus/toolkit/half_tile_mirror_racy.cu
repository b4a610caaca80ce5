//--blockDim=64 --gridDim=1
// half_tile_mirror without its barrier: the mirrored read of the shared tile races with the
// store of the thread at the other end (RAW). `__half(float)` is the toolkit's constructor.
#include <cuda_fp16.h>

__global__ void half_tile_mirror_racy(const float *in, __half *out) {
  __shared__ __half tile[64];
  tile[threadIdx.x] = __half(in[threadIdx.x] * 0.5f);
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
