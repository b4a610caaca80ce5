//--blockDim=[16,4] --gridDim=1
// A 2-D block: each thread row reads the row below it (cyclically) after writing
// its own row, indexing with threadIdx.y and threadIdx.x.
__global__ void twod_block(const float *in, float *out)
{
    __shared__ float grid[4][16];
    int x = threadIdx.x;
    int y = threadIdx.y;
    grid[y][x] = in[y * 16 + x];
    out[y * 16 + x] = grid[(y + 1) % 4][x];
}
