//--blockDim=64 --gridDim=1
// Two races on two arrays whose intervals overlap, so one barrier after both
// writes separates both pairs.
__global__ void two_races_one_barrier(const float *in, float *out)
{
    __shared__ float a[64];
    __shared__ float b[64];
    int t = threadIdx.x;
    a[t] = in[t];
    b[t] = in[t + 64];
    float p = a[(t + 1) % 64];
    float q = b[(t + 2) % 64];
    out[t] = p * q;
}
