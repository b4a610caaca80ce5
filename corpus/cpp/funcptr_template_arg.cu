//--blockDim=64 --gridDim=4
// A decoding function chosen at compile time and passed as a template argument (`template
// <decode_t decode>`), the way quantized-tensor libraries select a dequantizer per format. The
// instantiation calls `decode` through the substituted pointer: the call is inlined like a
// call by name. Each thread decodes two values into its own pair of shared slots, and after the
// barrier reads its neighbour's pair. Race-free.
typedef void (*decode_t)(const unsigned char *q, int i, float &lo, float &hi);

static __device__ void decode_nibbles(const unsigned char *q, int i, float &lo, float &hi) {
  lo = (float)(q[i] & 15) - 8.0f;
  hi = (float)(q[i] >> 4) - 8.0f;
}

template <decode_t decode>
__global__ void funcptr_template_arg(const unsigned char *q, float *out) {
  __shared__ float pairs[128];
  const int t = threadIdx.x;
  float lo, hi;
  decode(q, blockIdx.x * 64 + t, lo, hi);
  pairs[2 * t] = lo;
  pairs[2 * t + 1] = hi;
  __syncthreads();
  const int n = (t + 1) % 64;
  out[blockIdx.x * 64 + t] = pairs[2 * n] + pairs[2 * n + 1];
}

template __global__ void funcptr_template_arg<decode_nibbles>(const unsigned char *, float *);
