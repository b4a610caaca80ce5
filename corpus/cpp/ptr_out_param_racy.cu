//--blockDim=128 --gridDim=2
// ptr_out_param with a neighbour read: each thread reads the slot to its right through the
// pointer the helper returned and writes its own slot through the other. When the flag sends
// both pointers into one buffer (`same`), a thread reads the slot its neighbour writes (a
// race); when they differ, it is race-free. The checker must follow both choices; `fix`
// puts one barrier between the read and the write.
__device__ void pick(float **src, float **dst, float *a, float *b, int flip, int same) {
  *src = flip ? b : a;
  *dst = same ? *src : (flip ? a : b);
}

__global__ void ptr_out_param_racy(const float *in, float *out, int flip, int same) {
  __shared__ float a[128];
  __shared__ float b[128];
  unsigned int t = threadIdx.x;
  a[t] = in[blockIdx.x * 128 + t];
  b[t] = 0.0f;
  __syncthreads();
  float *src = a;
  float *dst = b;
  pick(&src, &dst, a, b, flip, same);
  float v = src[(t + 1) % 128];
  dst[t] = v;
  __syncthreads();
  out[blockIdx.x * 128 + t] = a[t] + b[t];
}
