//--blockDim=64 --gridDim=1
// Defect (unsafe recycling): the producer re-arrives on barrier 1 every iteration
// without waiting for the consumer, so its second arrival can join the first
// generation before the consumer has synced on it.
__global__ void unsafe_recycling(const float *in, float *out, int iters)
{
    __shared__ float buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            buf[lane] = in[k * 32 + lane];
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            out[k * 32 + lane] = buf[lane];
        }
    }
}
