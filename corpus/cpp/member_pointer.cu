//--blockDim=64 --gridDim=4
// Records staged in shared memory, read back through a pointer to member chosen by a template
// argument (`tile[63 - t].*Field`). The barrier orders every store before the mirrored read:
// race-free. autosync does not model pointers to members, so the kernel is inconclusive.
struct Sample {
  int key;
  int weight;
};

template <int Sample::*Field>
__global__ void member_pointer(const Sample *in, int *out) {
  __shared__ Sample tile[64];
  unsigned int t = threadIdx.x;
  tile[t].key = in[blockIdx.x * 64 + t].key;
  tile[t].weight = in[blockIdx.x * 64 + t].weight;
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[63 - t].*Field;
}

template __global__ void member_pointer<&Sample::weight>(const Sample *, int *);
