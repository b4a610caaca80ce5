//--blockDim=64 --gridDim=4
// funcptr_template_arg without its barrier: a thread reads its neighbour's pair of shared
// slots while the neighbour writes them (RAW on both slots). The decoder is a function pointer
// given as a template argument, called through the substituted pointer.
typedef void (*decode_t)(const unsigned char *q, int i, float &lo, float &hi);

static __device__ void decode_nibbles(const unsigned char *q, int i, float &lo, float &hi) {
  lo = (float)(q[i] & 15) - 8.0f;
  hi = (float)(q[i] >> 4) - 8.0f;
}

template <decode_t decode>
__global__ void funcptr_template_arg_racy(const unsigned char *q, float *out) {
  __shared__ float pairs[128];
  const int t = threadIdx.x;
  float lo, hi;
  decode(q, blockIdx.x * 64 + t, lo, hi);
  pairs[2 * t] = lo;
  pairs[2 * t + 1] = hi;
  const int n = (t + 1) % 64;
  out[blockIdx.x * 64 + t] = pairs[2 * n] + pairs[2 * n + 1];
}

template __global__ void funcptr_template_arg_racy<decode_nibbles>(const unsigned char *, float *);
