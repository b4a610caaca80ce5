//--blockDim=64 --gridDim=1
// The inner loop is synchronized before each read, but the outer loop's next store
// can overwrite a slot a neighbour is still reading: the race straddles only the
// outer back edge, so the cheap fix is in the outer body, not the inner one.
__global__ void backedge_outer(const float *in, float *out, int n, int m)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        s[t] = in[i * 64 + t];
        for (int j = 0; j < m; j++) {
            __syncthreads();
            acc += s[(t + j + 1) % 64];
        }
    }
    out[t] = acc;
}
