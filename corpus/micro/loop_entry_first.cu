//--blockDim=64 --gridDim=1
// Each thread seeds its own slot, then every iteration bumps the slot i + 1 places further on.
// Iteration 0 already touches a neighbour's slot, so the seed races with the first iteration
// too: a barrier at the end of the body is not enough, one before the loop is still needed.
__global__ void loop_entry_first(const float *in, float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    for (int i = 0; i < n; i++) {
        s[(t + i + 1) % 64] += 1.0f;
    }
    out[t] = s[t];
}
