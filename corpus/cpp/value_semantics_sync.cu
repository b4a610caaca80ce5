//--gridDim=2
// The race-free counterpart of value_semantics.cu, written with the same C++: default
// arguments on device functions and on the kernel, a struct returned by value and then
// modified, a pointer local assigned after its declaration, references into shared memory,
// scoped and unscoped enums, __launch_bounds__ (the block size, 128) and #pragma unroll.
// Each phase is separated by a barrier.

enum class Phase : int { kStage, kBlend };
enum Border { kWrap = 0, kZero = 1 };

struct Window {
    int lo;
    int hi;
    Border border;
};

__device__ Window make_window(int center, int radius = 1, Border border = kWrap)
{
    Window w;
    w.lo = center - radius;
    w.hi = center + radius;
    w.border = border;
    return w;
}

__device__ void store_shifted(int *dst, int value, int t, int shift = 1)
{
    dst[(t + shift) % 128] = value;
}

__device__ int phase_weight(Phase p, int base = 2)
{
    return p == Phase::kStage ? base : base * 2;
}

__device__ void accumulate(int &total, const int &value, int times = 1)
{
    total += value * times;
}

__global__ void __launch_bounds__(128, 2) value_semantics_sync(const int *in, int *out, int scale = 3)
{
    __shared__ int staged[128];
    __shared__ int blended[128];
    int t = threadIdx.x;
    int g = blockIdx.x * 128 + t;

    int *q;
    q = staged;
    store_shifted(q, in[g] * phase_weight(Phase::kStage), t);
    __syncthreads();

    Window w = make_window(t);
    w.hi += 1;
    int acc = 0;
#pragma unroll
    for (int d = 0; d < 4; ++d) {
        accumulate(acc, q[(w.lo + d + 128) % 128], scale);
    }
    int &slot = blended[t];
    slot = acc;
    __syncthreads();

    const int &other = blended[(t + 64) % 128];
    out[g] = other * phase_weight(Phase::kBlend) + (w.border == kZero ? 1 : 0);
}
