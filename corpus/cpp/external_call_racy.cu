//--blockDim=64 --gridDim=4
// A tile is handed to a function compiled in another file (`-rdc`, say a checksum or a
// debug dump) right after every thread stored its element. Without its body, the call may
// read any element of the tile, among them one a neighbour has not stored yet: a race
// between the stores (line 14) and the call (line 15). `fix` puts a barrier before the call.
__device__ float checksum(const float *tile, int n);

__global__ void external_call_racy(const float *in, float *out) {
  __shared__ float tile[64];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * 64 + t;
  float v = 2.0f * in[i];
  float s = 0.0f;
  tile[t] = v;
  s = checksum(tile, 64);
  out[i] = v + s;
}
