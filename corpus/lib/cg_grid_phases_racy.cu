//--blockDim=64 --gridDim=4
// cg_grid_phases without its grid.sync(): each thread reads the element of the same lane in
// the next block while that block may still be storing it, a race between blocks that no
// barrier inside a block can order (unfixable by autosync).
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_grid_phases_racy(const float *in, float *work, float *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int n = gridDim.x * blockDim.x;
  work[i] = 2.0f * in[i];
  out[i] = work[(i + blockDim.x) % n];
}
