//--blockDim=64 --gridDim=1
// Each thread accumulates into its own slot inside the loop and reads a neighbour's
// slot after it: the cheap fix is one barrier after the loop, not inside it.
__global__ void race_after_loop(const float *in, float *out, int n)
{
    __shared__ float acc[64];
    int t = threadIdx.x;
    acc[t] = 0.0f;
    for (int i = 0; i < n; i++) {
        acc[t] += in[i * 64 + t];
    }
    out[t] = acc[(t + 1) % 64] - acc[t];
}
