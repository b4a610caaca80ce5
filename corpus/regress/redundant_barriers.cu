//--blockDim=64 --gridDim=1
// Correct but over-synchronized: the barrier inside the loop orders nothing the barrier after
// the loop does not already order. `fix --minimize` removes it (cost 101 -> 1).
__global__ void redundant_barriers(float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = t * 2.0f;
    for (int i = 0; i < n; i++) {
        __syncthreads();
        out[64 * (i + 1) + t] = i;
    }
    __syncthreads();
    out[t] = s[63 - t];
}
