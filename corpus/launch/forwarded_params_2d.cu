// Racy twin of forwarded_params: the host function builds a block two rows high, and the
// value reaches the launch through the same middle function and parameters struct: the two
// rows share threadIdx.x and store to the same tile element in one statement.
__global__ void mirror_row_2d(const float *in, float *out) {
    extern __shared__ float tile[];
    const unsigned int t = threadIdx.x;
    tile[t] = in[(blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}

struct launch_params {
    dim3 grid;
    dim3 block;
    unsigned int shmem;
    launch_params(const dim3 &grid_, const dim3 &block_, unsigned int shmem_)
        : grid(grid_), block(block_), shmem(shmem_) {}
};

template <typename Kernel, typename... Args>
static void launch_kernel(Kernel kernel, const launch_params &p, Args... args) {
    kernel<<<p.grid, p.block, p.shmem>>>(args...);
}

static void run_rows(const float *in, float *out, int rows, const dim3 &block) {
    const launch_params params(dim3(rows, 1, 1), block, block.x * sizeof(float));
    launch_kernel(mirror_row_2d, params, in, out);
}

static unsigned int width_for(int cols) {
    unsigned int w = 32;
    while (w < (unsigned int)cols && w < 1024) {
        w *= 2;
    }
    return w;
}

void mirror_rows(const float *in, float *out, int rows, int cols) {
    const dim3 block(width_for(cols), 2, 1);
    run_rows(in, out, rows, block);
}
