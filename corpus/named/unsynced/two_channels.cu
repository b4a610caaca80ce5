//--blockDim=128 --gridDim=1
// Two independent producer/consumer channels (warp 0 -> 1 through a, warp 2 -> 3
// through b), each one racy until it gets its own barrier pair.
__global__ void two_channels(const float *in, float *out)
{
    __shared__ float a[32];
    __shared__ float b[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        a[lane] = in[lane];
    } else if (warp == 1) {
        out[lane] = a[(lane + 3) % 32];
    } else if (warp == 2) {
        b[lane] = in[32 + lane];
    } else {
        out[32 + lane] = b[(lane + 5) % 32];
    }
}
