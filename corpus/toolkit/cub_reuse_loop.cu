//--blockDim=128 --gridDim=2
// Temp storage reused inside a loop over tiles: each iteration loads a 512-int tile with
// BlockLoad (TRANSPOSE: striped global reads, then an exchange through shared memory) and
// scans it with BlockScan, both in one union. Two barriers are needed: one between the two
// calls of an iteration (the load's exchange reads vs the scan's raking-grid writes), and one
// at the end of the body for the back edge (this iteration's last scan reads vs the next
// iteration's exchange writes). Race-free.
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>

#define THREADS 128
#define ITEMS 4
#define TILE (THREADS * ITEMS)

__global__ void cub_reuse_loop(const int *in, int *out, int tiles)
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
        __syncthreads();
        for (int i = 0; i < ITEMS; ++i) {
            dst[t * TILE + threadIdx.x * ITEMS + i] = carry + items[i];
        }
        carry += tile_total;
    }
}
