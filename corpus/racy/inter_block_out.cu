//--blockDim=64 --gridDim=4
// Unfixable by barriers: thread 0 of every block writes the same global word.
__global__ void inter_block_out(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t == 0) {
        out[0] = s[0] + s[63];
    }
}
