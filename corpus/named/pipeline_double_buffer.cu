//--blockDim=64 --gridDim=1
// Double-buffered pipeline: warp 0 produces into slot it%2, warp 1 consumes it.
// FULL0/FULL1 announce a filled slot, EMPTY0/EMPTY1 hand a drained slot back.
#define FULL0 1
#define EMPTY0 3

__device__ void named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}

__device__ void named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}

__global__ void pipeline_double_buffer(const float *in, float *out, int iters)
{
    __shared__ float slots[2][32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int it = 0; it < iters; ++it) {
            int slot = it % 2;
            if (it >= 2) {
                named_sync(EMPTY0 + slot, 64);
            }
            slots[slot][lane] = in[it * 32 + lane];
            named_arrive(FULL0 + slot, 64);
        }
    } else {
        for (int it = 0; it < iters; ++it) {
            int slot = it % 2;
            named_sync(FULL0 + slot, 64);
            out[it * 32 + lane] = slots[slot][31 - lane] + 1.0f;
            if (it + 2 < iters) {
                named_arrive(EMPTY0 + slot, 64);
            }
        }
    }
}
