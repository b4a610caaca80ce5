//--blockDim=128 --gridDim=1
// Two independent producer/consumer channels on distinct barrier IDs:
// warp 0 -> warp 1 through buffer a on barrier 1, warp 2 -> warp 3 through b on 2.
__global__ void two_channels(const float *in, float *out)
{
    __shared__ float a[32];
    __shared__ float b[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        a[lane] = in[lane];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[lane] = a[31 - lane];
    } else if (warp == 2) {
        b[lane] = in[32 + lane];
        asm volatile("bar.arrive 2, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        out[32 + lane] = b[31 - lane];
    }
}
