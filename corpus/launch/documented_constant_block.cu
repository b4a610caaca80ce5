// The block size is a product of constants of a library namespace, one brace-initialized and
// documented: Clang attaches the doc comment to the declaration in its AST, after the
// initializer. Correct for that 1-D block of 64 threads only (a 2-D block would race).
namespace tiles {
/**
 * @brief Threads that cooperate on one row.
 */
constexpr int ROW_THREADS{32};
} // namespace tiles

static constexpr int ROWS_PER_BLOCK = (2);
static constexpr int THREADS = (ROWS_PER_BLOCK * tiles::ROW_THREADS);

__global__ void rotate_rows(const float *in, float *out) {
    __shared__ float row[THREADS];
    size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x;
    row[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = row[(threadIdx.x + 1) % THREADS];
}

void launch_rotate_rows(const float *in, float *out, int n) {
    dim3 blocks(n / THREADS);
    rotate_rows<<<blocks, THREADS, 0>>>(in, out);
}
