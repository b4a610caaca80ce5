// The block size is a macro, the kernel a template instantiated by its launch: the launch gives
// both the instantiation and its block.
#define ROW_THREADS 64

template <typename T>
__global__ void shift_rows(const T *in, T *out) {
    __shared__ T row[ROW_THREADS];
    unsigned i = blockIdx.x * ROW_THREADS + threadIdx.x;
    row[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = row[(threadIdx.x + 1) % ROW_THREADS];
}

void launch_shift_rows(const float *in, float *out, int rows, cudaStream_t stream) {
    shift_rows<float><<<rows, ROW_THREADS, 0, stream>>>(in, out);
}
