//--blockDim=64 --gridDim=1
// arrive_wait with an arrive where arrive-and-wait was meant: the second round's token is
// dropped, so a thread overwrites its slot while its right neighbour may still be reading it.
__global__ void arrive_no_wait(const int *in, int *out)
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
    (void)__nvvm_mbarrier_arrive(&bar);
    buf[t] = left + in[t];
    out[t] = buf[t];
}
