//--blockDim=64 --gridDim=1
// A call through a null function pointer faults, and nothing after it runs; what the threads
// did before it still races: the neighbour read on line 15 races with the neighbour's store
// on line 14 (RAW). The call itself is where every thread's path ends.
typedef float (*Combine)(float a, float b);

__device__ float add(float a, float b) { return a + b; }
__device__ Combine d_add = add;

__global__ void funcptr_null_racy(const float *in, float *out) {
  __shared__ float part[64];
  unsigned int t = threadIdx.x;
  Combine op = 0;
  part[t] = in[t];
  float r = part[(t + 1) % 64];
  out[t] = op(r, r);
}
