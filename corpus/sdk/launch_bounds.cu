//--blockDim=128 --gridDim=2
// Pairwise swap and reversal through shared memory, with the block size also
// declared to the compiler through __launch_bounds__.
__global__ void __launch_bounds__(128) launch_bounds(float *data)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    int g = blockIdx.x * 128 + t;
    s[t] = data[g];
    __syncthreads();
    float mine = s[t ^ 1];
    __syncthreads();
    s[t] = mine * 2.0f;
    __syncthreads();
    data[g] = s[127 - t];
}
