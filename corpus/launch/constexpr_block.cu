// The block size is a constexpr variable of the host code. Correct for that 1-D block only
// (see literal_block.cu).
constexpr int kThreads = 128;

__global__ void reverse_constexpr(const float *in, float *out) {
    __shared__ float tile[kThreads];
    unsigned i = blockIdx.x * kThreads + threadIdx.x;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[kThreads - 1 - threadIdx.x];
}

void launch_reverse_constexpr(const float *in, float *out, int n) {
    reverse_constexpr<<<(n + kThreads - 1) / kThreads, kThreads, 0>>>(in, out);
}
