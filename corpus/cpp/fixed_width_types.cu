//--blockDim=64 --gridDim=1
// Fixed-width integer typedefs from the C library's headers (int32_t, int64_t, uint8_t,
// size_t). With the real toolkit they are declared by the precompiled CUDA prelude, so their
// sizes must come from Clang rather than from the file's own dump. The element sizes decide
// the verdict: each 64-bit slot is written as two 32-bit halves by its own thread, and after
// the barrier a thread reads its neighbour's whole slot. Race-free.
#include <cstddef>
#include <cstdint>

__global__ void fixed_width_types(const uint8_t *in, int32_t *out, size_t n) {
  __shared__ int64_t wide[64];
  int32_t *halves = reinterpret_cast<int32_t *>(wide);
  const int32_t t = threadIdx.x;
  halves[2 * t] = in[t % n];
  halves[2 * t + 1] = 0;
  __syncthreads();
  const int64_t v = wide[(t + 1) % 64];
  out[t] = static_cast<int32_t>(v);
}
