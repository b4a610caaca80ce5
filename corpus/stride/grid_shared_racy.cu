//--blockDim=64 --gridDim=4
// Racy twin of grid_shared: without the barrier at the end of the body, the next tile's
// stores overwrite elements other threads are still reading.
__global__ void grid_shared_racy(const int *in, int *out, int tiles)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    for (int b = blockIdx.x; b < tiles; b += gridDim.x) {
        int base = b * blockDim.x;
        tile[t] = in[base + t];
        __syncthreads();
        out[base + t] = tile[blockDim.x - 1 - t];
    }
}
