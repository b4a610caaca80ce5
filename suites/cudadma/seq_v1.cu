//--blockDim=96 --gridDim=2
// CudaDMA v1 (<cudaDMA.h>): a warp-specialized cudaDMASequential<true, 16, 1024, 32> moves one
// 256-float tile per iteration from global to shared memory. Warp 0 is the DMA warp
// (dma_threadIdx_start 0) and only calls execute_dma; warps 1-2 compute. dmaID 1 gives the
// library's barriers full = 2 and empty = 3, count 32 + 64 = 96. With 1024 bytes over 32 DMA
// threads at 16-byte alignment every DMA thread takes the same path: two float4 global loads,
// then (inside perform_two_xfers) bar.sync 3, 96, two float4 shared stores, then bar.arrive 2,
// 96. The compute warps hand the buffer over with start_async_dma() (bar.arrive 3, 96) and
// wait with wait_for_dma_finish() (bar.sync 2, 96). Race-free.
#include "cudaDMA.h"

#define TILE 256
#define COMPUTE 64

__global__ void seq_v1(const float *in, float *out, int iters)
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
            dma.wait_for_dma_finish();
            float acc = 0.0f;
            for (int j = 0; j < TILE / COMPUTE; ++j) {
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
