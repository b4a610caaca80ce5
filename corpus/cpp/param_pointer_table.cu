//--blockDim=128 --gridDim=8
// A kernel parameter struct carries a small table of input planes (`const float *plane[3]`)
// and one output. Each thread blends its pixel from the three planes, picking the plane of
// the second term by a run-time channel index, then smooths with its neighbour through a
// shared tile behind a barrier. Each table element is an array of its own (as pointer
// parameters are). Race-free.
struct Planes {
  const float *plane[3];
  float *out;
  int width;
};

__global__ void param_pointer_table(Planes p, int channel) {
  __shared__ float tile[128];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * 128 + t;
  float v = p.plane[0][i] + 0.5f * p.plane[channel][i];
  for (int k = 1; k < 3; ++k) {
    v += 0.25f * p.plane[k][i];
  }
  tile[t] = v;
  __syncthreads();
  p.out[i] = 0.5f * (tile[t] + tile[(t + 1) % 128]);
}
