//--blockDim=64 --gridDim=1
// One-line thread-dependent if: the lower half copies its slot into the upper half,
// which the upper half both wrote before and reads after. Barriers go around the if.
__global__ void one_line_if(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 32) s[t + 32] = s[t] + 1.0f;
    out[t] = s[t];
}
