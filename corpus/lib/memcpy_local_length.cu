//--blockDim=64 --gridDim=1
// A block copy whose length is a local variable initialized with a constant and never changed:
// the length is that constant (a length autosync cannot compute leaves the kernel inconclusive).
struct Sample { short lo; short hi; int tag; };

__global__ void memcpy_local_length(const Sample *in, int *out) {
  __shared__ Sample stage[64];
  unsigned t = threadIdx.x;
  size_t len = sizeof(short) * 2; // the two halves, not the tag
  memcpy(&stage[t], &in[t], len);
  out[t] = stage[(t + 1) % 64].hi + stage[t].tag;
}
