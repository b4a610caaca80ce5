//--blockDim=64 --gridDim=1
// GPUVerify's facts relating two threads are not used: `__distinct_int(n)` says two threads
// see different values of the parameter `n`, which no launch can satisfy (a parameter is the
// same in every thread), and `__uniform_int(k)` would let a verifier treat the thread-dependent
// `k` as one value. Assuming either would hide the race below; autosync notes them and drops
// them, keeping the other conjuncts (`n > 0`, which it does assume).

__global__ void gpuverify_no_two_thread_facts(int *out, int n)
{
    __requires(n > 0 && __distinct_int(n));
    __shared__ int s[64];
    int k = threadIdx.x % 2;
    __assume(__uniform_int(k) & k < 2);
    s[threadIdx.x] = n;
    if (k == 0) {
        s[threadIdx.x + 1] = 0;
    }
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
