//--blockDim=96 --gridDim=1
// Warp-specialized row smoothing built on the CudaDMA-style library in include/dma_lib.h
// (about 3,000 lines of class templates, nearly all unused here) plus three big standard
// headers used by the host-side launcher: the front-end size and speed benchmark. Warp 0 runs
// a DmaStrided engine that gathers 4 rows of 32 floats (rows `ld` apart) into shared memory
// each iteration; warps 1-2 smooth the staged rows. Barrier 1: buffer empty, barrier 2:
// buffer full (count 96, from the engine's base class), barrier 3: the compute warps' own
// exchange (count 64). Race-free.
#include <algorithm>
#include <functional>
#include <tuple>

#include "include/dma_lib.h"

#define ROWS 4
#define COLS 32
#define LD 256
#define EXCHANGE_BAR 3

typedef dmalib::DmaStrided<float, ROWS, COLS, LD, 32, 64, 1, 2> RowEngine;

__device__ __forceinline__ void compute_barrier()
{
    asm volatile("bar.sync %0, %1;" :: "r"(EXCHANGE_BAR), "r"(64) : "memory");
}

__global__ void dma_lib_rows(const float *in, float *out, int iters)
{
    __shared__ float rows[ROWS * COLS];
    __shared__ float edges[64];
    RowEngine dma(threadIdx.x < 32, rows, 0);

    if (dma.owns_this_thread()) {
        for (int it = 0; it < iters; ++it) {
            dma.execute_dma(in + it * ROWS * LD);
        }
    } else {
        int c = threadIdx.x - 32;
        int r = c / 16;
        int col = (c % 16) * 2;
        dma.start_async_dma();
        for (int it = 0; it < iters; ++it) {
            dma.wait_for_dma_finish();
            const float *row = rows + r * COLS;
            float left = row[(col + COLS - 1) % COLS];
            float a = row[col];
            float b = row[col + 1];
            float right = row[(col + 2) % COLS];
            edges[c] = a + b;
            compute_barrier();
            float total = edges[c] + edges[c ^ 1];
            out[it * 128 + 2 * c] = 0.25f * (left + 2.0f * a + b) + 0.0f * total;
            out[it * 128 + 2 * c + 1] = 0.25f * (a + 2.0f * b + right);
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}

// Host side: the launch description, using the standard headers.
typedef std::tuple<dim3, dim3, int> LaunchConfig;

static LaunchConfig plan_launch(int items)
{
    typedef dmalib::LaunchShape<1, 2, ROWS * COLS * 4 + 64 * 4> Shape;
    int per_block = std::max(ROWS * COLS, 1);
    return std::make_tuple(Shape::grid(items, per_block), Shape::block(), items / per_block);
}

static int run_all(const std::function<int(const LaunchConfig &)> &launch, int items)
{
    LaunchConfig cfg = plan_launch(items);
    int iters = std::get<2>(cfg);
    return launch(cfg) + std::min(iters, 0);
}
