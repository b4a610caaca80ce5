//--blockDim=96 --gridDim=1
// A producer warp and two consumer warps that take turns on a shared accumulator.
// Barrier 1 (96): tile full; barrier 2 (96): tile drained by both consumers;
// barrier 3 (64): consumer A done with acc; barrier 4 (64): consumer B done with acc.
__global__ void pingpong_consumers(const float *in, float *out, int iters)
{
    __shared__ float tile[32];
    __shared__ float acc[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int r = 0; r < iters; ++r) {
            if (r > 0) {
                asm volatile("bar.sync 2, 96;" ::: "memory");
            }
            tile[lane] = in[r * 32 + lane];
            asm volatile("bar.arrive 1, 96;" ::: "memory");
        }
    } else if (warp == 1) {
        for (int r = 0; r < iters; ++r) {
            asm volatile("bar.sync 1, 96;" ::: "memory");
            if (r > 0) {
                asm volatile("bar.sync 4, 64;" ::: "memory");
            }
            acc[lane] += tile[lane];
            asm volatile("bar.arrive 3, 64;" ::: "memory");
            if (r + 1 < iters) {
                asm volatile("bar.arrive 2, 96;" ::: "memory");
            }
        }
    } else {
        for (int r = 0; r < iters; ++r) {
            asm volatile("bar.sync 1, 96;" ::: "memory");
            asm volatile("bar.sync 3, 64;" ::: "memory");
            acc[lane] = acc[lane] * 0.5f + tile[31 - lane];
            out[r * 32 + lane] = acc[lane];
            if (r + 1 < iters) {
                asm volatile("bar.arrive 4, 64;" ::: "memory");
                asm volatile("bar.arrive 2, 96;" ::: "memory");
            }
        }
    }
}
