//--blockDim=64 --gridDim=1
// Each thread seeds its own slot, then every iteration bumps the slot i places further on.
// Iteration 0 touches only the thread's own slot, so the seed races only with later iterations:
// one barrier at the end of the body orders the seed, the back edge and the read after the loop.
__global__ void loop_entry_racy(const float *in, float *out, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    for (int i = 0; i < n; i++) {
        s[(t + i) % 64] += 1.0f;
    }
    out[t] = s[t];
}
