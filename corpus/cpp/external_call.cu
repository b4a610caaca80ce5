//--blockDim=64 --gridDim=4
// A weight comes from a function compiled in another file (`-rdc`): only its declaration is
// here. Every thread calls it with its index; autosync models it as touching any element of
// what it is given (nothing here: an int) and of this file's device variables (none), and
// says so in a note. The shared exchange after it is behind a barrier. Race-free.
__device__ float weight(int i);

__global__ void external_call(const float *in, float *out) {
  __shared__ float tile[64];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * 64 + t;
  float w = weight((int)i);
  tile[t] = w * in[i];
  __syncthreads();
  out[i] = tile[t] + tile[63 - t];
}
