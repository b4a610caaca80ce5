//--blockDim=96 --gridDim=2
// CudaDMA v1 strided engine: cudaDMAStrided<true, 16, 128, 32, 8> gathers 8 rows of 32 floats
// (128 bytes each) from a row-major matrix with a pitch of `pitch` floats into a packed 8x32
// shared tile, one band of rows per iteration. The DMA warp is warp 2 (dma_threadIdx_start
// 64); warps 0-1 compute a vertical 3-point stencil inside the band. dmaID 2: full = 4,
// empty = 5, count 96. For this shape the library splits the warp 8 threads per row, each
// thread moving one float4 of rows e and e + 4 (e = dma thread / 8): two global loads,
// bar.sync 5, 96, two shared stores, bar.arrive 4, 96 (the same path for every DMA thread).
// Race-free.
#include "cudaDMA.h"

#define ROWS 8
#define COLS 32
#define COMPUTE 64

__global__ void strided_v1(const float *in, float *out, int pitch, int iters)
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
        dma.start_async_dma();
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
