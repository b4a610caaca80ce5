//--blockDim=96 --gridDim=2
// Protocol bug in a CudaDMA v1 consumer: seq_v1 where the compute warps read the first element
// of their column before wait_for_dma_finish(). In step k the DMA warp's shared stores (inside
// execute_dma, after it has synced on empty barrier 3) and this early read are unordered: the
// compute warps have already arrived on barrier 3 for step k, and the full barrier 2 they wait
// on comes after the read (read-after-write race in the same step; the next step's stores are
// still ordered after it by the next empty generation). Fix by insertion, keeping the
// library's barriers: a new arrive after the execute_dma call in the DMA loop and a new sync
// (count 96, a free ID) before the early read.
#include "cudaDMA.h"

#define TILE 256
#define COMPUTE 64

__global__ void seq_v1_early_read(const float *in, float *out, int iters)
{
    __shared__ __align__(16) float tile[TILE];
    cudaDMASequential<true, 16, TILE * 4, 32> dma(1, COMPUTE, 0);
    const float *src = in + blockIdx.x * iters * TILE;
    if (dma.owns_this_thread()) {
        for (int it = 0; it < iters; ++it) {
            dma.execute_dma(src + it * TILE, tile);
        }
    } else {
        int c = threadIdx.x - 32;
        dma.start_async_dma();
        for (int it = 0; it < iters; ++it) {
            float acc = tile[c];
            dma.wait_for_dma_finish();
            for (int j = 1; j < TILE / COMPUTE; ++j) {
                int i = j * COMPUTE + c;
                acc += tile[i] * tile[(i + 1) % TILE];
            }
            out[(blockIdx.x * iters + it) * COMPUTE + c] = acc;
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}
