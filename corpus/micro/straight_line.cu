//--blockDim=64 --gridDim=2
// One race in straight-line code: every thread reads its right neighbour's slot,
// then overwrites its own slot (write-after-read between neighbours).
__global__ void straight_line(const float *in, float *out)
{
    __shared__ float a[65];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    float x = a[t + 1];
    x = x + in[g];
    a[t] = x;
    out[g] = x;
}
