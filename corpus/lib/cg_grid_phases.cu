//--blockDim=64 --gridDim=4
// A two-phase update across the whole grid: every thread stores its element, the grid
// synchronizes (cooperative launch), and each thread then reads the element of the same
// lane in the next block, which another block wrote. grid.sync() at the kernel's top level
// orders the two phases for threads of different blocks too. Race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_grid_phases(const float *in, float *work, float *out) {
  cg::grid_group grid = cg::this_grid();
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int n = gridDim.x * blockDim.x;
  work[i] = 2.0f * in[i];
  grid.sync();
  out[i] = work[(i + blockDim.x) % n];
}
