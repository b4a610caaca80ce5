//--blockDim=128 --gridDim=2
// Cooperative groups from the CUDA toolkit: tiled_partition<32>(block) gives one
// thread_block_tile<32> per warp. Each warp exchanges values across half-warps through shared
// memory (ordered by tile.sync(), i.e. __syncwarp(mask)), reduces in registers with
// tile.shfl_down, and lane 0 publishes the warp total; after block.sync() warp 0
// (tile.meta_group_rank() == 0) reduces the four totals with shfl_down again. Race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128
#define WARPS (THREADS / 32)

__global__ void cg_tile_shfl(const float *in, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float stage[THREADS];
    __shared__ float warp_sums[WARPS];

    unsigned int r = block.thread_rank();
    unsigned int lane = tile.thread_rank();
    unsigned int w = tile.meta_group_rank();

    stage[r] = in[blockIdx.x * THREADS + r];
    tile.sync();
    float v = fmaxf(stage[r], stage[w * 32 + (lane ^ 16)]);
    for (int offset = 16; offset > 0; offset /= 2) {
        v += tile.shfl_down(v, offset);
    }
    if (lane == 0) {
        warp_sums[w] = v;
    }
    block.sync();

    if (w == 0) {
        float s = lane < WARPS ? warp_sums[lane] : 0.0f;
        for (int offset = WARPS / 2; offset > 0; offset /= 2) {
            s += tile.shfl_down(s, offset);
        }
        if (lane == 0) {
            out[blockIdx.x] = s;
        }
    }
}
