//--blockDim=64 --gridDim=8
// A combine function picked per block from the block index (`op` is a local pointer, the same
// in every thread of a block) and checked for null before the call. A tree reduction in shared
// memory calls it through the pointer between barriers. Race-free.
typedef float (*Combine)(float a, float b);

__device__ float add(float a, float b) { return a + b; }
__device__ float larger(float a, float b) { return a > b ? a : b; }

__global__ void funcptr_local(const float *in, float *out) {
  __shared__ float part[64];
  unsigned int t = threadIdx.x;
  Combine op = (blockIdx.x % 2 == 0) ? add : larger;
  part[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  for (unsigned int s = 32; s > 0; s /= 2) {
    if (t < s && op != 0)
      part[t] = op(part[t], part[t + s]);
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = part[0];
}
