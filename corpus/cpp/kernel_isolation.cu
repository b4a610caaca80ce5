//--blockDim=64 --gridDim=4
// Two kernels in one file. `mirrored_fields` reads a record's field through a pointer to
// member (`.*`), which autosync does not model: that kernel alone is inconclusive, named with
// the operator's location. `neighbour_sum` has a race of its own (a thread reads its
// neighbour's slot with no barrier after the store), which is still reported and fixed: one
// construct the front end cannot read never hides the verdicts of the file's other kernels.
struct Sample {
  int key;
  int weight;
};

template <int Sample::*Field>
__global__ void mirrored_fields(const Sample *in, int *out) {
  __shared__ Sample tile[64];
  unsigned int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[63 - t].*Field;
}

template __global__ void mirrored_fields<&Sample::key>(const Sample *, int *);

__global__ void neighbour_sum(const int *in, int *out) {
  __shared__ int buf[64];
  unsigned int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 64 + t];
  out[blockIdx.x * 64 + t] = buf[t] + buf[(t + 1) % 64];
}
