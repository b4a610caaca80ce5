//--blockDim=96 --gridDim=2
// CudaDMA's Kepler-generation header (<cudaDMAK.h>) and its two-phase strided engine:
// cudaDMAStridedTwoPhase<true, float4, 16, 32, 128, 32, 8> splits a transfer into
// begin_xfer_async (the global loads, into the DMA thread's registers, no barrier) and
// wait_xfer_commit (bar.sync empty, the shared stores, bar.arrive full). The DMA warp (warp 1,
// dma_threadIdx_start 32) gathers band k + 1 of 8 rows x 32 floats into registers as soon as
// band k is committed, while warps 0 and 2 still compute on band k. dmaID 3: full = 6,
// empty = 7, count 96. Race-free.
#include "cudaDMAK.h"

#define ROWS 8
#define COLS 32
#define COMPUTE 64

__global__ void strided_k_two_phase(const float *in, float *out, int pitch, int iters)
{
    __shared__ __align__(16) float band[ROWS * COLS];
    cudaDMAStridedTwoPhase<true, float4, 16, 32, COLS * 4, 32, ROWS> dma(3, COMPUTE, 32, pitch * 4);
    const float *src = in + blockIdx.x * COLS;
    if (dma.owns_this_thread()) {
        dma.begin_xfer_async(src);
        for (int it = 0; it < iters; ++it) {
            dma.wait_xfer_commit(band);
            if (it + 1 < iters) {
                dma.begin_xfer_async(src + (it + 1) * ROWS * pitch);
            }
        }
    } else {
        int c = threadIdx.x < 32 ? threadIdx.x : threadIdx.x - 32;
        int col = c % COLS;
        int r0 = (c / COLS) * (ROWS / 2);
        dma.start_async_dma();
        for (int it = 0; it < iters; ++it) {
            dma.wait_for_dma_finish();
            float best = band[r0 * COLS + col];
            for (int r = r0 + 1; r < r0 + ROWS / 2; ++r) {
                best = fmaxf(best, band[r * COLS + col]);
            }
            out[(it * 2 + c / COLS) * pitch + blockIdx.x * COLS + col] = best;
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}
