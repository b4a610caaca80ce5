//--blockDim=64 --gridDim=1
// Barrier divergence: only the first warp reaches the barrier.
__global__ void barrier_divergence(const float *in, float *out)
{
    __shared__ float s[64];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    if (tid < 32) {
        __syncthreads();
    }
    out[tid] = s[tid] * 2.0f;
}
