//--gridDim=2
// Everyday C++ in a kernel where the constructs decide the verdict: a default argument (the
// shift of rotate_into), a struct returned by value and then modified (the window is widened
// after make_window returns), a pointer local assigned after its declaration
// (`int *q; q = staged;`), a reference to a shared slot, an enum, a kernel parameter with a
// default, __launch_bounds__ (the block size, 128) and #pragma unroll. The barrier between
// the writes and the reads is missing, and two pairs race:
//  - rotate_into's default shift 1 stores each value one slot to the right, so thread t
//    reads staged[t] that thread t-1 wrote (with shift 0 it would be its own slot);
//  - the widened window [t, t+1] makes thread t read flags[t+1] of thread t+1 (the window
//    make_window returns is [t, t]).

enum Border { kWrap = 0, kZero = 1 };

struct Window {
    int lo;
    int hi;
    Border border;
};

__device__ Window make_window(int center, int radius = 0, Border border = kWrap)
{
    Window w;
    w.lo = center - radius;
    w.hi = center + radius;
    w.border = border;
    return w;
}

__device__ void rotate_into(int *dst, int value, int t, int shift = 1)
{
    dst[(t + shift) % 128] = value;
}

__device__ int wrap_index(int i, int n = 128)
{
    return (i + n) % n;
}

__global__ void __launch_bounds__(128) value_semantics(const int *in, int *out, int scale = 3)
{
    __shared__ int staged[128];
    __shared__ int flags[128];
    __shared__ int result[128];
    int t = threadIdx.x;
    int g = blockIdx.x * 128 + t;
    int v = in[g];

    int *q;
    q = staged;
    rotate_into(q, v * scale, t);
    flags[t] = v > 0 ? 1 : 0;

    Window w = make_window(t);
    w.hi += 1;

    int acc = q[t];
#pragma unroll
    for (int d = 0; d <= w.hi - w.lo; ++d) {
        acc += flags[wrap_index(w.lo + d)];
    }
    int &mine = result[t];
    mine = acc;
    out[g] = mine + (w.border == kWrap ? 0 : 1);
}
