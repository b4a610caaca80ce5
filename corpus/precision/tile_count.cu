//--blockDim=64 --gridDim=16
// Renders a variable number of 64-pixel tiles per block: thread 0 reads how
// many tiles the block owns and publishes the count in shared memory; after a
// barrier every thread reads the same count, so the tile loop, and the barriers
// in it, are uniform across the block.
__global__ void tile_count(const int *tiles_per_block, const float *scene, float *image, int max_tiles)
{
    // blockIdx.x * max_tiles is unsigned arithmetic: it must not wrap around.
    __requires(max_tiles <= 4096);
    __shared__ int count[1];
    __shared__ float row[64];
    int tid = threadIdx.x;
    if (tid == 0) {
        int c = tiles_per_block[blockIdx.x];
        count[0] = c < max_tiles ? c : max_tiles;
    }
    __syncthreads();
    int n = count[0];
    for (int t = 0; t < n && t < max_tiles; t++) {
        int tile = blockIdx.x * max_tiles + t;
        row[tid] = scene[tile * 64 + tid] * 0.5f;
        __syncthreads();
        image[tile * 64 + tid] = row[tid] + row[63 - tid];
        __syncthreads();
    }
}
