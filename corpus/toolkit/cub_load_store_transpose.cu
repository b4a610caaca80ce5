//--blockDim=64 --gridDim=2
// cub::BlockLoad / cub::BlockStore with the TRANSPOSE algorithms: a striped (coalesced) global
// read is transposed to a blocked arrangement through shared memory (BlockExchange, padded
// because 8 items per thread is a power of two above 4), each thread runs a local inclusive
// scan over its 8 consecutive items, and the store transposes back to striped. Load and store
// have their own temp storage (two __shared__ objects, not a union), so no barrier is needed
// between them in the user's code: race-free.
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

#define THREADS 64
#define ITEMS 8
#define TILE (THREADS * ITEMS)

__global__ void cub_load_store_transpose(const int *in, int *out)
{
    typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE> LoadT;
    typedef cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_TRANSPOSE> StoreT;
    __shared__ typename LoadT::TempStorage load_temp;
    __shared__ typename StoreT::TempStorage store_temp;

    int items[ITEMS];
    LoadT(load_temp).Load(in + blockIdx.x * TILE, items);
    for (int i = 1; i < ITEMS; ++i) {
        items[i] += items[i - 1];
    }
    StoreT(store_temp).Store(out + blockIdx.x * TILE, items);
}
