//--blockDim=16 --gridDim=1
// x is 0 or 4 in every thread, so the branch on x > 40 never runs; the SDV checker gives x a
// fresh value at the loop head (the branch changes it) and reports races inside the branch,
// where no barrier can go. The named-barrier checker tracks x and finds a __syncthreads-only
// placement, which `check` (SDV for kernels without named barriers) would still reject:
// `fix` must report the kernel unfixable and write nothing, not fail its re-verification.
__global__ void value_guarded_branch(int *out)
{
    __shared__ int a[32];
    __shared__ int b[32];
    int t = threadIdx.x;
    int x = 0;
    if (t == 0)
        x = 4;
    a[t] = x;
    for (int i = 0; i < 3; i++) {
        b[15 - t] = x + i;
        if (x > 40) {
            a[t] = x;
            x = x + b[15 - t];
            a[2 * t] = x;
        }
        a[t ^ 1] = i;
    }
    out[t] = x + a[t];
}
