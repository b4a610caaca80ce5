//--blockDim=64 --gridDim=1
// `tid` is threadIdx.x as an int: never negative, so every thread takes the
// branch and its barrier separates the store from the neighbour's load. (The
// barrier is only correct because the branch is taken by all threads.)
__global__ void tid_nonneg(const int *in, int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (tid >= 0) {
        __syncthreads();
        out[tid] = 1;
    }
    out[64 + tid] = s[(tid + 1) % 64];
}
