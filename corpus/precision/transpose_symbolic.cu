//--blockDim=[16,16] --gridDim=[4,4]
// Tiled transpose of a width x height matrix of any size, with the barrier
// between the tile's store and its transposed load missing. The guards keep
// every element of `out` to one writer, so `fix` needs no sizes.
__global__ void transpose_symbolic(const float *in, float *out, int width, int height)
{
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    }
    x = blockIdx.y * 16 + threadIdx.x;
    y = blockIdx.x * 16 + threadIdx.y;
    if (x < height && y < width) {
        out[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}
