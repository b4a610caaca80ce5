//--blockDim=96 --gridDim=2
// CudaDMA v2 (<cudaDMAv2.h>) two-phase transfers: CudaDMASequential<true, 16, 32, 1024, 32>
// splits execute_dma into start_xfer_async (global loads into the DMA thread's registers, no
// barrier) and wait_xfer_finish (bar.sync empty, shared stores, bar.arrive full). The DMA warp
// (warp 1, dma_threadIdx_start 32) prefetches step k + 1 into registers right after finishing
// step k, while warps 0 and 2 still compute on the tile. dmaID 3: full = 6, empty = 7, count
// 96. Race-free as CUDA, but Clang rejects the header itself: its WARP_SPECIALIZED_*_METHODS
// macros call `CudaDMA::template wait_for_dma_start()`, the `template` keyword before a
// non-template member of a non-dependent base ("does not refer to a template"). Expected:
// an input error (exit 2) naming cudaDMAv2.h, not a verdict.
#include "cudaDMAv2.h"

#define TILE 256
#define COMPUTE 64

__global__ void seq_v2_two_phase(const float *in, float *out, int iters)
{
    __shared__ __align__(16) float tile[TILE];
    CudaDMASequential<true, 16, 32, TILE * 4, 32> dma(3, COMPUTE, 32);
    const float *src = in + blockIdx.x * iters * TILE;
    if (dma.owns_this_thread()) {
        dma.start_xfer_async(src);
        for (int it = 0; it < iters; ++it) {
            dma.wait_xfer_finish(tile);
            if (it + 1 < iters) {
                dma.start_xfer_async(src + (it + 1) * TILE);
            }
        }
    } else {
        int c = threadIdx.x < 32 ? threadIdx.x : threadIdx.x - 32;
        dma.start_async_dma();
        for (int it = 0; it < iters; ++it) {
            dma.wait_for_dma_finish();
            float best = tile[c];
            for (int j = 1; j < TILE / COMPUTE; ++j) {
                best = fmaxf(best, tile[j * COMPUTE + c]);
            }
            out[(blockIdx.x * iters + it) * COMPUTE + c] = best;
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}
