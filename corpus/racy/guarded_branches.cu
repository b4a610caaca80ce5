//--blockDim=64 --gridDim=1
// Odd threads publish a value, even threads clear their own slot; afterwards even
// threads read the odd slot next to them. The guards depend on the thread id.
__global__ void guarded_branches(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float v = in[t];
    if (t & 1) {
        s[t] = v;
    } else {
        s[t] = 0.0f;
    }
    float got = 0.0f;
    if ((t & 1) == 0) {
        got = s[t + 1];
    }
    out[t] = got;
}
