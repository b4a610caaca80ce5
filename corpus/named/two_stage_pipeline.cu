//--blockDim=96 --gridDim=1
// Two-stage pipeline over three warps: load (warp 0) -> transform (warp 1) -> store
// (warp 2), one buffer per stage. Barriers 1/2 are full/empty for buffer a,
// barriers 3/4 are full/empty for buffer b.
__global__ void two_stage_pipeline(const float *in, float *out, int iters)
{
    __shared__ float a[32];
    __shared__ float b[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int it = 0; it < iters; ++it) {
            if (it > 0) {
                asm volatile("bar.sync 2, 64;" ::: "memory");
            }
            a[lane] = in[it * 32 + lane];
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        }
    } else if (warp == 1) {
        for (int it = 0; it < iters; ++it) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            float v = a[lane ^ 1] * 3.0f;
            if (it + 1 < iters) {
                asm volatile("bar.arrive 2, 64;" ::: "memory");
            }
            if (it > 0) {
                asm volatile("bar.sync 4, 64;" ::: "memory");
            }
            b[lane] = v;
            asm volatile("bar.arrive 3, 64;" ::: "memory");
        }
    } else {
        for (int it = 0; it < iters; ++it) {
            asm volatile("bar.sync 3, 64;" ::: "memory");
            out[it * 32 + lane] = b[31 - lane];
            if (it + 1 < iters) {
                asm volatile("bar.arrive 4, 64;" ::: "memory");
            }
        }
    }
}
