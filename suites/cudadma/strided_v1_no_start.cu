//--blockDim=96 --gridDim=2
// Protocol bug (deadlock): strided_v1 whose compute warps never make the initial
// start_async_dma() call. The DMA warp's first execute_dma waits on the empty barrier
// (bar.sync 5, 96) for the compute warps' arrival, while the compute warps wait on the full
// barrier (bar.sync 4, 96) for the DMA warp's: a cyclic wait in the first step.
#include "cudaDMA.h"

#define ROWS 8
#define COLS 32
#define COMPUTE 64

__global__ void strided_v1_no_start(const float *in, float *out, int pitch, int iters)
{
    __shared__ __align__(16) float band[ROWS * COLS];
    cudaDMAStrided<true, 16, COLS * 4, 32, ROWS> dma(2, COMPUTE, 64, pitch * 4);
    const float *src = in + blockIdx.x * COLS;
    if (dma.owns_this_thread()) {
        for (int it = 0; it < iters; ++it) {
            dma.execute_dma(src + it * ROWS * pitch, band);
        }
    } else {
        int col = threadIdx.x % COLS;
        int r0 = (threadIdx.x / COLS) * (ROWS / 2);
        for (int it = 0; it < iters; ++it) {
            dma.wait_for_dma_finish();
            for (int r = r0; r < r0 + ROWS / 2; ++r) {
                int up = r > 0 ? r - 1 : r;
                int down = r < ROWS - 1 ? r + 1 : r;
                float v = 0.25f * band[up * COLS + col] + 0.5f * band[r * COLS + col]
                        + 0.25f * band[down * COLS + col];
                out[(it * ROWS + r) * pitch + blockIdx.x * COLS + col] = v;
            }
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}
