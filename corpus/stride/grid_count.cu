//--blockDim=128 --gridDim=4
// A grid-stride loop whose trip count is read from device memory (a work-queue length), with
// an unsigned index: each item is scaled in place by its one owner.
__global__ void grid_count(const unsigned *count, float *items, float scale)
{
    unsigned total = *count & 0xFFFF; // a queue of at most 65,536 items
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x * gridDim.x) {
        items[i] = items[i] * scale;
    }
}
