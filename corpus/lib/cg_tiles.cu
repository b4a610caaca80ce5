//--blockDim=128 --gridDim=2
// Cooperative groups throughout: the block and its 32-thread tiles come from
// this_thread_block() and tiled_partition<32>(block), every index from thread_rank().
// Exchanges inside a warp are ordered by tile.sync() (warp-level barrier); exchanges across
// warps by block.sync() and cg::sync(block). Every barrier is needed; race-free.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define THREADS 128
#define WARPS (THREADS / 32)

__global__ void cg_tiles(const float *in, float *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float vals[THREADS];
    __shared__ float warp_totals[WARPS];

    unsigned int r = block.thread_rank();
    unsigned int lane = tile.thread_rank();
    unsigned int w = r / 32;
    unsigned int first = w * 32;

    vals[r] = in[blockIdx.x * THREADS + r];
    tile.sync();
    float pair = vals[r] + vals[first + (lane ^ 1)];
    tile.sync();
    vals[r] = pair;
    tile.sync();

    if (lane == 0) {
        float s = 0.0f;
        for (int k = 0; k < 32; k += 2) {
            s += vals[first + k];
        }
        warp_totals[w] = s;
    }
    block.sync();

    float total = 0.0f;
    for (int k = 0; k < WARPS; ++k) {
        total += warp_totals[k];
    }
    float shifted = vals[(r + 32) % THREADS];
    cg::sync(block);
    vals[r] = shifted / total;
    block.sync();

    out[blockIdx.x * THREADS + r] = vals[(r + 64) % THREADS];
}
