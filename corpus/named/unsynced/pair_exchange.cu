//--blockDim=128 --gridDim=1
// Warps 0/1 and warps 2/3 each swap halves of their 64-element segment, in
// separate warp-uniform branches that run concurrently.
__global__ void pair_exchange(const float *in, float *out)
{
    __shared__ float x[128];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp < 2) {
        x[t] = in[t] + 1.0f;
        out[t] = x[t ^ 32];
    } else {
        x[t] = in[t] - 1.0f;
        out[t] = x[t ^ 32];
    }
}
