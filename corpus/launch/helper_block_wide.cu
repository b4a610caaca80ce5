// Racy twin of helper_block: the same helper launches the kernel with 2 * HALF_THREADS = 256
// threads, so thread t + 128 writes buf[t + 128] in the statement where thread t writes it in
// the next one, and each block's outputs overlap the next block's.
struct launch_cfg {
    dim3 grid;
    dim3 block;
    size_t smem;
    cudaStream_t stream;
    launch_cfg(const dim3 &g, const dim3 &b, size_t m, cudaStream_t s) : grid(g), block(b), smem(m), stream(s) {}
    launch_cfg(const dim3 &g, const dim3 &b, int m, cudaStream_t s) : grid(g), block(b), smem((size_t)m), stream(s) {}
};

template <typename Kernel, typename... Args>
static void launch_with(Kernel kernel, const launch_cfg &cfg, Args &&...args) {
    kernel<<<cfg.grid, cfg.block, cfg.smem, cfg.stream>>>(args...);
}

#define HALF_THREADS 128

__global__ void mirror_halves_wide(const float *in, float *out) {
    __shared__ float buf[2 * HALF_THREADS];
    const int t = threadIdx.x;
    const int base = blockIdx.x * HALF_THREADS;
    buf[t] = in[base + t];
    buf[t + HALF_THREADS] = 0.5f * in[base + t];
    __syncthreads();
    out[base + t] = buf[2 * HALF_THREADS - 1 - t];
}

void mirror(const float *in, float *out, int rows, cudaStream_t s) {
    const launch_cfg cfg(rows, 2 * HALF_THREADS, 0, s);
    launch_with(mirror_halves_wide, cfg, in, out);
}
