//--blockDim=128 --gridDim=2
// cub_reuse_loop with no barrier of the user's: BlockLoad and BlockScan share a union inside a
// loop over tiles. Two races, both between the two calls: within an iteration, the load's
// exchange reads (after its internal barrier) vs the scan's raking-grid writes; across the
// back edge, the scan's last reads of iteration t vs the exchange writes of iteration t + 1.
// No single position in the body orders both (the barrier between the calls does not reach
// the back edge, one at the end or start of the body does not separate load and scan of one
// iteration): the fix needs two __syncthreads() in the body (cost 2 x 100).
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

__global__ void cub_reuse_loop_racy(const int *in, int *out, int tiles)
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
        int tile_total;
        ScanT(temp.scan).ExclusiveSum(items, items, tile_total);
        for (int i = 0; i < ITEMS; ++i) {
            dst[t * TILE + threadIdx.x * ITEMS + i] = carry + items[i];
        }
        carry += tile_total;
    }
}
