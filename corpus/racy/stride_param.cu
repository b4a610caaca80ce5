//--blockDim=64 --gridDim=1
// The lower half writes slots [0, 32); the upper half reads slots [k, k + 32).
// The two ranges overlap, and so race, exactly when k < 32.
__global__ void stride_param(const float *in, float *out, int k)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    float got = 0.0f;
    if (t < 32) {
        s[t] = in[t];
    }
    if (t >= 32) {
        got = s[t - 32 + k];
    }
    out[t] = got;
}
