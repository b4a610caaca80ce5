//--blockDim=64 --gridDim=1
// Two kernels in one file: the first one races and needs a barrier, the second
// touches only its own slot and must be left alone.
__global__ void rotate_left(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + 1) % 64];
}

__global__ void scale_own(const float *in, float *out, float k)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t] * k;
    out[t] = s[t];
}
