//--blockDim=128 --gridDim=4
// Traps only on bad input: a negative length (a data-dependent path) or a block of more
// than 128 threads, which the launch rules out. Some path of every thread completes, so
// this is no always-traps kernel: clean.
__global__ void arch_gated_trap_guarded(const float *in, float *out, int n)
{
    __shared__ float tile[128];
    if (n < 0 || blockDim.x > 128)
        __trap();
    int i = blockIdx.x * 128 + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[127 - threadIdx.x];
}
