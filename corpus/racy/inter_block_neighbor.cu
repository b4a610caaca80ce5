//--blockDim=32 --gridDim=4
// Unfixable by barriers: block b reads the word that block b+1 writes.
__global__ void inter_block_neighbor(float *g)
{
    if (threadIdx.x == 0) {
        float next = g[blockIdx.x + 1];
        g[blockIdx.x] = next * 0.5f;
    }
}
