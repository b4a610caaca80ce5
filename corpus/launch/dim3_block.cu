// A 2-D block built as a local dim3 from constants: each block transposes its 16x16 tile
// through shared memory into its own 256 outputs, correct for 16x16 threads (a block of 32x16
// would write tile elements twice).
__global__ void transpose_tile(const float *in, float *out, int width) {
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    size_t tile_id = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
    out[tile_id * 256 + threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

void launch_transpose_tile(const float *in, float *out, int width) {
    dim3 block(16, 16, 1);
    dim3 grid(width / 16, width / 16);
    transpose_tile<<<grid, block>>>(in, out, width);
}
