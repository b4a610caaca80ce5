//--blockDim=96 --gridDim=1
// Defect (too many participants): barrier 1 is declared for 64 threads, but all
// three warps of the block sync on it.
__global__ void too_many_participants(const float *in, float *out)
{
    __shared__ float data[96];
    int t = threadIdx.x;
    data[t] = in[t];
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[t] = data[t];
}
