//--blockDim=64 --gridDim=4
// An iterative grid-wide update: each round every thread reads its neighbour element of the
// previous round's buffer and writes its own element of the next one, with grid.sync()
// between rounds. The round count is a kernel parameter, the same in every block, so every
// block reaches each grid barrier. The grid barrier sits in a loop (not at the top level):
// it orders each block's threads around the shared exchange (without it, a neighbour's slot
// is read while it is written), and the checker does not take it as a boundary between
// blocks, which is sound here since blocks touch disjoint elements of `b`. Race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_grid_loop(float *a, float *b, int rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    float v = a[i] + 1.0f;
    __shared__ float s[64];
    s[threadIdx.x] = v;
    grid.sync();
    b[i] = s[(threadIdx.x + 1) % 64];
    grid.sync();
  }
}
