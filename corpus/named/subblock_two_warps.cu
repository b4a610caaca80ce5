//--blockDim=128 --gridDim=1
// A sub-block barrier: warps 0 and 1 exchange halves through shared memory and
// synchronize only among themselves, while warps 2 and 3 do unrelated global work.
__global__ void subblock_two_warps(const float *in, float *out)
{
    __shared__ float pair[64];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp < 2) {
        pair[t] = in[t];
        asm volatile("bar.sync 1, 64;");
        out[t] = pair[63 - t];
    } else {
        out[t] = in[t] * 0.5f;
    }
}
