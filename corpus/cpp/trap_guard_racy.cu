//--blockDim=64 --gridDim=1
// Racy twin of trap_guard: the guard lets threads 32..47 through too, and they store to the
// slots of threads 0..15 (`t % 32`): a write-write race in one statement.

__global__ void trap_guard_racy(unsigned int *out) {
    __shared__ unsigned int slot[32];
    const unsigned int t = threadIdx.x;
    if (t >= 48) {
        __trap();
    }
    slot[t % 32] = t;
    out[t] = slot[t % 32];
}
