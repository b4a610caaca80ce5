// A library-style launch: the block travels from the host function that computes it, as a
// `const dim3 &` parameter of a middle function, into a launch-parameters struct, to a
// variadic launch helper that takes the kernel as a value. Every caller passes a block of
// (run-time width, 1, 1): the kernel is checked for 1-D blocks, where each thread owns
// tile[threadIdx.x] (a second row of threads would share it).
__global__ void mirror_row(const float *in, float *out) {
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
    launch_kernel(mirror_row, params, in, out);
}

static unsigned int width_for(int cols) {
    unsigned int w = 32;
    while (w < (unsigned int)cols && w < 1024) {
        w *= 2;
    }
    return w;
}

void mirror_rows(const float *in, float *out, int rows, int cols) {
    const dim3 block(width_for(cols), 1, 1);
    run_rows(in, out, rows, block);
}
