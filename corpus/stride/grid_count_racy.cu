//--blockDim=128 --gridDim=4
// Racy twin of grid_count: the stride is the block size, not the grid's, so blocks visit
// each other's items.
__global__ void grid_count_racy(const unsigned *count, float *items, float scale)
{
    unsigned total = *count & 0xFFFF; // a queue of at most 65,536 items
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += blockDim.x) {
        items[i] = items[i] * scale;
    }
}
