//--blockDim=64 --gridDim=1
// The barrier separates the read from the write within an iteration, but nothing
// separates the write from the neighbour's read in the next iteration.
__global__ void backedge_d1(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float x = 0.0f;
    for (int i = 0; i < n; i++) {
        x = s[(t + 1) % 64];
        __syncthreads();
        s[t] = x + 1.0f;
    }
    out[t] = x;
}
