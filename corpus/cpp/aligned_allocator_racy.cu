//--blockDim=128 --gridDim=1
// Tiles carved out of dynamic shared memory by allocators that round the cursor up through
// integer arithmetic, as tile libraries do for TMA-aligned tiles: `take` tests `at % 256` and
// adds the gap, `take_masked` rounds with `+ 255 & ~255` in a `uintptr_t`. The address is a
// number every thread of the block shares; the pointers made back from it point into the same
// array, 400 bytes and a gap apart. Both tiles written and, with no barrier, neighbours read.
#include <stdint.h>

struct carver {
    char *cur;
    __device__ explicit carver(void *base) : cur(static_cast<char *>(base)) {}
    template <typename T> __device__ T *take(int n)
    {
        uint64_t at = reinterpret_cast<uint64_t>(cur);
        if (at % 256 != 0)
            cur = reinterpret_cast<char *>(at + (256 - at % 256));
        T *p = reinterpret_cast<T *>(cur);
        cur += n * sizeof(T);
        return p;
    }
    template <typename T> __device__ T *take_masked(int n)
    {
        uintptr_t at = (reinterpret_cast<uintptr_t>(cur) + 255) & ~static_cast<uintptr_t>(255);
        T *p = reinterpret_cast<T *>(at);
        cur = reinterpret_cast<char *>(p + n);
        return p;
    }
};

__global__ void aligned_allocator_racy(float *out)
{
    extern __shared__ int smem[];
    carver c(smem);
    float *a = c.take<float>(100);
    float *b = c.take_masked<float>(128);
    unsigned t = threadIdx.x;
    if (t < 100)
        a[t] = t;
    b[t] = 2.0f * t;

    out[t] = a[(t + 1) % 100] + b[(t + 3) % 128];
}
