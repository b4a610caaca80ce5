//--blockDim=64 --gridDim=1
// GPUVerify's proof obligations are accepted and never assumed: the postcondition of `half`
// claims it returns its argument, and the loop invariant and assertion claim each thread
// writes only its own slot. All three are false (two threads share each half index), and
// the race between them stays reported.

__device__ int half(int i)
{
    __requires(i >= 0);
    __ensures(__return_val_int() == i);
    return i / 2;
}

__global__ void gpuverify_obligations(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int h = half(t);
    for (int j = 0; __invariant(__write_implies(s, __write_offset_bytes(s) / sizeof(int) == t)),
                    __invariant(__no_read(s)), j < 1; j++) {
        s[h] = t;
    }
    __assert(__implies(__enabled(), h == t));
    __syncthreads();
    out[t] = s[t];
}
