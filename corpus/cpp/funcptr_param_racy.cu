//--blockDim=128 --gridDim=4
// One step of a two-stage tile update chosen at run time: the host reads the address of one
// of the __device__ functions below through the `__device__` pointer variables and passes it
// as `step`. A call through the pointer may run any function of the file whose address is
// taken and whose parameters match. funcptr_param without the barrier after the call: when
// `step` is `shift`, a thread reads its right neighbour's slot while the neighbour overwrites
// it (WAR). With `scale` alone the kernel would be race-free; the call may run either.
typedef float (*Step)(const float *tile, unsigned int i);

__device__ float scale(const float *tile, unsigned int i) {
  return 2.0f * tile[i];
}

__device__ float shift(const float *tile, unsigned int i) {
  return tile[(i + 1) % 128];
}

__device__ Step d_scale = scale;
__device__ Step d_shift = shift;

__global__ void funcptr_param_racy(const float *in, float *out, Step step) {
  __shared__ float tile[128];
  unsigned int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  float v = step(tile, t);
  tile[t] = v;
  __syncthreads();
  out[blockIdx.x * 128 + t] = tile[(t + 64) % 128];
}
