//--blockDim=64 --gridDim=4
// A grid-stride loop staging tiles in shared memory: the trip count is uniform per block
// (tiles of blockDim elements), so the barriers inside the loop are aligned; each thread
// reverses its neighbour pair through the tile.
__global__ void grid_shared(const int *in, int *out, int tiles)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    for (int b = blockIdx.x; b < tiles; b += gridDim.x) {
        int base = b * blockDim.x;
        tile[t] = in[base + t];
        __syncthreads();
        out[base + t] = tile[blockDim.x - 1 - t];
        __syncthreads();
    }
}
