//--blockDim=64 --gridDim=1
// As tid_nonneg.cu, with the branch on a parameter instead: when `bias` is
// negative nobody takes it, and the store races with the neighbour's load.
__global__ void tid_nonneg_racy(const int *in, int *out, int bias)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (bias >= 0) {
        __syncthreads();
        out[tid] = 1;
    }
    out[64 + tid] = s[(tid + 1) % 64];
}
