//--blockDim=64 --gridDim=2
// A tile barrier used where a block barrier is needed: each thread reads the element 16
// positions ahead, which for lanes 16-31 of warp 0 lies in warp 1 (and for warp 1 wraps into
// warp 0). tile.sync() only orders the 32 threads of one tile, so both the read after the
// first tile.sync() and the in-place write after the second race across warps. Two block
// barriers fix it.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void cg_tile_race(const float *in, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float s[64];
    unsigned int r = block.thread_rank();

    s[r] = in[blockIdx.x * 64 + r];
    tile.sync();
    float ahead = s[(r + 16) % 64];
    tile.sync();
    s[r] = 0.5f * (s[r] + ahead);
    block.sync();

    out[blockIdx.x * 64 + r] = s[63 - r];
}
