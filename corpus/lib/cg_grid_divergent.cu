//--blockDim=64 --gridDim=4
// cg_grid_loop's rounds with the grid barrier only in even blocks: every thread of a block
// agrees on the condition (it depends on blockIdx only), so no block barrier diverges, but
// odd blocks never reach the grid barrier and the grid hangs. Barrier divergence at the grid
// level.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_grid_divergent(float *a, float *b) {
  cg::grid_group grid = cg::this_grid();
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float s[64];
  s[threadIdx.x] = a[i];
  if (blockIdx.x % 2 == 0) {
    grid.sync();
  }
  b[i] = s[threadIdx.x];
}
