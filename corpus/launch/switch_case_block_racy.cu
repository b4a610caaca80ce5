// Twin of switch_case_block.cu where `case 8:` falls through into `case 4:`: the launch of
// `scale_columns_ft<4>` runs with `cols` 4 or 8, so on the first path the block has 8 rows and
// rows 4-7 return before the barrier the others wait at (barrier divergence; the tile's reads
// after it are then unordered). The checker takes no value from a case another falls into.
template <int COLS>
__global__ void scale_columns_ft(const float *in, float *out, int n) {
    __shared__ float tile[32 * 8];
    const int lane = threadIdx.x;
    const int col = threadIdx.y;
    if (col >= COLS) {
        return;
    }
    const int slot = col * 32 + lane;
    tile[slot] = slot < n ? in[(long long)blockIdx.x * n + slot] : 0.0f;
    __syncthreads();
    const int mirror = (COLS - 1 - col) * 32 + (31 - lane);
    if (slot < n) {
        out[(long long)blockIdx.x * n + slot] = 0.5f * (tile[slot] + tile[mirror]);
    }
}

void scale(const float *in, float *out, int n, int cols, int batches, cudaStream_t s) {
    const dim3 threads(32, cols);
    switch (cols) {
    case 8:
        n = n / 2;
    case 4:
        scale_columns_ft<4><<<batches, threads, 0, s>>>(in, out, n);
        break;
    default:
        break;
    }
}
