//--blockDim=128 --gridDim=2
// Warps 0 and 1 reduce 64 values inside a warp-uniform branch while warps 2 and 3
// scale their inputs; the reduction needs a sub-block barrier, not a block-wide one.
__global__ void subblock_reduce(const float *in, float *sums, float *scaled)
{
    __shared__ float red[64];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp < 2) {
        red[t] = in[blockIdx.x * 128 + t];
        for (int h = 32; h > 0; h >>= 1) {
            if (t < h) {
                red[t] += red[t + h];
            }
        }
        if (t == 0) {
            sums[blockIdx.x] = red[0];
        }
    } else {
        scaled[blockIdx.x * 64 + t - 64] = in[blockIdx.x * 128 + t] * 0.25f;
    }
}
