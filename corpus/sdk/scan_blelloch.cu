//--blockDim=32 --gridDim=2
// Exclusive work-efficient scan of 64 integers per block with 32 threads: an
// up-sweep builds partial sums in place, a down-sweep distributes them back.
#define LEN 64

__global__ void scan_blelloch(const int *in, int *out)
{
    __shared__ int s[LEN];
    int t = threadIdx.x;
    int base = blockIdx.x * LEN;
    s[2 * t] = in[base + 2 * t];
    s[2 * t + 1] = in[base + 2 * t + 1];

    int stride = 1;
    for (int active = LEN / 2; active > 0; active >>= 1) {
        __syncthreads();
        if (t < active) {
            int left = stride * (2 * t + 1) - 1;
            int right = stride * (2 * t + 2) - 1;
            s[right] += s[left];
        }
        stride <<= 1;
    }

    if (t == 0) {
        s[LEN - 1] = 0;
    }

    for (int active = 1; active < LEN; active <<= 1) {
        stride >>= 1;
        __syncthreads();
        if (t < active) {
            int left = stride * (2 * t + 1) - 1;
            int right = stride * (2 * t + 2) - 1;
            int carry = s[left];
            s[left] = s[right];
            s[right] += carry;
        }
    }

    // The last down-sweep step touches only s[2t] and s[2t+1] of thread t, which
    // is exactly what the thread stores below: no barrier is needed here.
    out[base + 2 * t] = s[2 * t];
    out[base + 2 * t + 1] = s[2 * t + 1];
}
