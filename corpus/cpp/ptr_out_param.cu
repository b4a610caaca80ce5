//--blockDim=128 --gridDim=2
// A helper picks the source and destination buffers through output parameters (`T **`),
// chosen by a run-time flag with `?:`; the kernel then copies a tile between the two shared
// buffers it was given. Each thread copies its own slot, whichever buffer each pointer ends
// up in; the neighbour's slots are read after the barrier. Race-free.
__device__ void pick(float **src, float **dst, float *a, float *b, int flip) {
  *src = flip ? b : a;
  *dst = flip ? a : b;
}

__global__ void ptr_out_param(const float *in, float *out, int flip) {
  __shared__ float a[128];
  __shared__ float b[128];
  unsigned int t = threadIdx.x;
  a[t] = in[blockIdx.x * 128 + t];
  b[t] = 0.0f;
  float *src = a;
  float *dst = b;
  pick(&src, &dst, a, b, flip);
  dst[t] = 2.0f * src[t];
  __syncthreads();
  out[blockIdx.x * 128 + t] = a[(t + 1) % 128] + b[(t + 1) % 128];
}
