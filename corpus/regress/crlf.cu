//--blockDim=64 --gridDim=1
// A CRLF file: every line ends in \r\n, and an inserted barrier must too.
__global__ void crlf(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[63 - t];
}
