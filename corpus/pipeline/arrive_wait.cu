//--blockDim=64 --gridDim=1
// An mbarrier as a reusable block barrier through Clang's builtins: every thread stores its
// value, arrives (keeping the token) and spins on test_wait with it before reading its
// neighbour's value; the second round reuses the barrier's next phase.
__global__ void arrive_wait(const int *in, int *out)
{
    __shared__ long bar;
    __shared__ int buf[64];
    int t = threadIdx.x;
    if (t == 0)
        __nvvm_mbarrier_init(&bar, 64);
    __syncthreads();
    buf[t] = in[t];
    long token = __nvvm_mbarrier_arrive(&bar);
    while (!__nvvm_mbarrier_test_wait(&bar, token)) {
    }
    int left = buf[(t + 63) % 64];
    token = __nvvm_mbarrier_arrive(&bar);
    while (!__nvvm_mbarrier_test_wait(&bar, token)) {
    }
    buf[t] = left + in[t];
    out[t] = buf[t];
}
