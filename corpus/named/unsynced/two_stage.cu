//--blockDim=96 --gridDim=1
// Load -> transform -> store over three warps, single shot, no barriers.
__global__ void two_stage(const float *in, float *out)
{
    __shared__ float a[32];
    __shared__ float b[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        a[lane] = in[lane];
    } else if (warp == 1) {
        float v = a[lane ^ 1] * 3.0f;
        b[lane] = v;
    } else {
        out[lane] = b[31 - lane];
    }
}
