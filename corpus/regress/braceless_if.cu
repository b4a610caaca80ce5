//--blockDim=64 --gridDim=1
// A brace-less if with a uniform guard: the cheapest barrier is inside the if, just
// before the racing read, so the fix must wrap the body in braces.
__global__ void braceless_if(const float *in, float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (n > 0)
        out[t] = s[(t + n) % 64];
}
