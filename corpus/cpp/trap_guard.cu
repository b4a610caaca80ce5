//--blockDim=64 --gridDim=1
// `__trap()` as a guard: a thread that calls it stops (and the launch fails), so only the
// first 32 threads reach the store, each at its own slot of `slot[t % 32]`.

__global__ void trap_guard(unsigned int *out) {
    __shared__ unsigned int slot[32];
    const unsigned int t = threadIdx.x;
    if (t >= 32) {
        __trap();
    }
    slot[t % 32] = t;
    out[t] = slot[t % 32];
}
