//--blockDim=128 --gridDim=8
// param_pointer_table without the barrier: the neighbour read of the shared tile races with
// the neighbour's store (RAW). `fix` puts the barrier back between the store and the read.
struct Planes {
  const float *plane[3];
  float *out;
  int width;
};

__global__ void param_pointer_table_racy(Planes p, int channel) {
  __shared__ float tile[128];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * 128 + t;
  float v = p.plane[0][i] + 0.5f * p.plane[channel][i];
  tile[t] = v;
  float w = tile[(t + 1) % 128];
  p.out[i] = 0.5f * (v + w);
}
