//--blockDim=64 --gridDim=1
// A local pointer to the upper half of a shared array: reads through the pointer
// overlap stores made through the array name.
__global__ void pointer_alias(const float *in, float *out)
{
    __shared__ float s[128];
    float *upper = &s[64];
    int t = threadIdx.x;
    s[t + 32] = in[t];
    float got = upper[t];
    out[t] = got;
}
