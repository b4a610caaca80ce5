//--blockDim=64 --gridDim=1
// A struct with an array member staged through shared memory: the assignment copies member by
// member (implicit operator=), and `Window w = staged[...]` runs the implicit copy constructor,
// which Clang writes as an element-by-element copy of the array (ArrayInitLoopExpr). The
// copy of the neighbour's taps reads what the neighbour writes, with no barrier between: a race.
struct Window {
  float taps[4];
  int origin;
};

__global__ void array_member_copy_racy(const Window *wins, float *out) {
  __shared__ Window staged[64];
  staged[threadIdx.x] = wins[blockIdx.x * 64 + threadIdx.x];
  Window w = staged[(threadIdx.x + 1) % 64];
  out[blockIdx.x * 64 + threadIdx.x] = w.taps[0] + w.taps[3] + w.origin;
}
