//--blockDim=128 --gridDim=2
// libcu++'s block-scope cuda::barrier with cuda::memcpy_async, read through the toolkit's own
// headers: the block stages TILES tiles of global memory through one shared tile. Each
// iteration the whole block issues the copy (on sm_80 each thread's cp.async of its own
// element, tied to the barrier by cp.async.mbarrier.arrive), waits on the barrier for the
// copies, reads a neighbour's element, and waits once more before the next copy may overwrite
// the tile. The barrier lives in raw shared storage (Clang refuses a __shared__ cuda::barrier:
// its destructor is not empty). Race-free.
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

#define TILE 128
#define TILES 2

__global__ void barrier_memcpy_async(const float *in, float *out) {
    __shared__ float tile[TILE];
    using barrier_t = cuda::barrier<cuda::thread_scope_block>;
    alignas(barrier_t) __shared__ unsigned char storage[sizeof(barrier_t)];
    barrier_t &bar = *reinterpret_cast<barrier_t *>(storage);
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    float sum = 0.0f;
    for (int t = 0; t < TILES; ++t) {
        cuda::memcpy_async(block, tile, in + (blockIdx.x * TILES + t) * TILE, sizeof(float) * TILE, bar);
        bar.arrive_and_wait();
        sum += tile[(block.thread_rank() + 1) % TILE];
        bar.arrive_and_wait();
    }
    out[blockIdx.x * TILE + block.thread_rank()] = sum;
}
