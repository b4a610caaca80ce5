//--blockDim=96 --gridDim=1
// One producer warp broadcasts to two consumer warps: the barrier count covers the
// arriving producer and both syncing consumers.
__global__ void broadcast_three_warps(const float *in, float *out)
{
    __shared__ float coeff[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        coeff[lane] = in[lane];
        asm volatile("bar.arrive 5, 96;" ::: "memory");
    } else {
        asm volatile("bar.sync 5, 96;" ::: "memory");
        out[threadIdx.x - 32] = coeff[lane] * coeff[(lane + warp) % 32];
    }
}
