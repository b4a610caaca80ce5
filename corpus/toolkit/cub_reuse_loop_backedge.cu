//--blockDim=128 --gridDim=2
// cub_reuse_loop with only the barrier CUB documents between the two calls: the back edge is
// unordered. The scan's last reads of iteration t (each thread's prefix from the raking grid
// and the tile total, after CUB's internal barriers) race with the next iteration's first
// exchange writes inside BlockLoad (a write-after-read race across iterations, reported at the
// two calls). Within an iteration the written barrier orders load and scan, and load(t) vs
// load(t+1) and scan(t) vs scan(t+1) are ordered by CUB's internal barriers. Fix: one
// __syncthreads() at the end (or start) of the loop body.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

__global__ void cub_reuse_loop_backedge(const int *in, int *out, int tiles)
{
    typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE> LoadT;
    typedef cub::BlockScan<int, THREADS> ScanT;
    __shared__ union {
        typename LoadT::TempStorage load;
        typename ScanT::TempStorage scan;
    } temp;

    const int *src = in + blockIdx.x * tiles * TILE;
    int *dst = out + blockIdx.x * tiles * TILE;
    int carry = 0;
    for (int t = 0; t < tiles; ++t) {
        int items[ITEMS];
        LoadT(temp.load).Load(src + t * TILE, items);
        __syncthreads();
        int tile_total;
        ScanT(temp.scan).ExclusiveSum(items, items, tile_total);
        for (int i = 0; i < ITEMS; ++i) {
            dst[t * TILE + threadIdx.x * ITEMS + i] = carry + items[i];
        }
        carry += tile_total;
    }
}
