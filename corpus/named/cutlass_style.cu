//--blockDim=64 --gridDim=1
// Producer/consumer loop written against a small CUTLASS-style NamedBarrier helper.
// Barrier 1: buffer full; barrier 2: buffer empty again.
struct NamedBarrier {
    static __device__ void sync(int num_threads, int id)
    {
        asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(num_threads) : "memory");
    }
    static __device__ void arrive(int num_threads, int id)
    {
        asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(num_threads) : "memory");
    }
};

__global__ void cutlass_style(const float *in, float *out, int iters)
{
    __shared__ float buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            if (k > 0) {
                NamedBarrier::sync(64, 2);
            }
            buf[lane] = in[k * 32 + lane];
            NamedBarrier::arrive(64, 1);
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            NamedBarrier::sync(64, 1);
            out[k * 32 + lane] = buf[(lane + 7) % 32];
            if (k + 1 < iters) {
                NamedBarrier::arrive(64, 2);
            }
        }
    }
}
