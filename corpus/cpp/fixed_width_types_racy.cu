//--blockDim=64 --gridDim=1
// fixed_width_types without its barrier: a thread reads its neighbour's 64-bit slot while the
// neighbour writes the two 32-bit halves of it (RAW on the low and the high half). With a
// wrong size for int64_t or int32_t the halves would land elsewhere and the race would move.
#include <cstddef>
#include <cstdint>

__global__ void fixed_width_types_racy(const uint8_t *in, int32_t *out, size_t n) {
  __shared__ int64_t wide[64];
  int32_t *halves = reinterpret_cast<int32_t *>(wide);
  const int32_t t = threadIdx.x;
  halves[2 * t] = in[t % n];
  halves[2 * t + 1] = 0;
  const int64_t v = wide[(t + 1) % 64];
  out[t] = static_cast<int32_t>(v);
}
