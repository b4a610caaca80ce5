//--blockDim=64 --gridDim=1
// Two races with disjoint intervals: a pair-swap through a, then a rotation
// through b; each needs its own barrier.
__global__ void two_races_two_barriers(const float *in, float *out)
{
    __shared__ float a[64];
    __shared__ float b[64];
    int t = threadIdx.x;
    a[t] = in[t];
    float x = a[t ^ 1];
    b[t] = x * 3.0f;
    float y = b[(t + 1) % 64];
    out[t] = y;
}
