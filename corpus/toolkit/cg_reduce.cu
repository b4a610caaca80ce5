//--blockDim=128 --gridDim=2
// cg::reduce from <cooperative_groups/reduce.h> on a thread_block_tile<32>: for int and
// cg::plus on sm_80 the toolkit lowers it to one redux.sync (__reduce_add_sync), with no
// shared memory; every lane gets the warp total. Lane 0 of each tile stores it to shared
// memory, block.sync(), and each thread of warp 0 scales its own element of the output by the
// block total. Race-free.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define THREADS 128
#define WARPS (THREADS / 32)

__global__ void cg_reduce(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ int warp_totals[WARPS];

    unsigned int r = block.thread_rank();
    int v = in[blockIdx.x * THREADS + r];
    int warp_total = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0) {
        warp_totals[tile.meta_group_rank()] = warp_total;
    }
    block.sync();

    int block_total = 0;
    for (int k = 0; k < WARPS; ++k) {
        block_total += warp_totals[k];
    }
    out[blockIdx.x * THREADS + r] = v * WARPS - block_total / 32;
}
