// Racy twin of documented_constant_block: the two rows of a block share the tile but are
// ordered by __syncwarp only, so a thread reading its neighbour's element across the warp
// boundary may read it before it is written. The block size is read as there.
namespace tiles {
/**
 * @brief Threads that cooperate on one row.
 */
constexpr int ROW_THREADS{32};
} // namespace tiles

static constexpr int ROWS_PER_BLOCK = (2);
static constexpr int THREADS = (ROWS_PER_BLOCK * tiles::ROW_THREADS);

__global__ void rotate_rows_racy(const float *in, float *out) {
    __shared__ float row[THREADS];
    size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x;
    row[threadIdx.x] = in[i];
    __syncwarp();
    out[i] = row[(threadIdx.x + 1) % THREADS];
}

void launch_rotate_rows_racy(const float *in, float *out, int n) {
    dim3 blocks(n / THREADS);
    rotate_rows_racy<<<blocks, THREADS, 0>>>(in, out);
}
