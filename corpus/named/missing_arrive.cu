//--blockDim=64 --gridDim=1
// Defect (deadlock): an off-by-one guard skips the producer's last arrival, so the
// consumer's final sync on barrier 1 never completes.
__global__ void missing_arrive(const float *in, float *out, int iters)
{
    __shared__ float buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            if (k > 0) {
                asm volatile("bar.sync 2, 64;" ::: "memory");
            }
            buf[lane] = in[k * 32 + lane];
            if (k + 1 < iters) {
                asm volatile("bar.arrive 1, 64;" ::: "memory");
            }
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            out[k * 32 + lane] = buf[lane];
            if (k + 1 < iters) {
                asm volatile("bar.arrive 2, 64;" ::: "memory");
            }
        }
    }
}
