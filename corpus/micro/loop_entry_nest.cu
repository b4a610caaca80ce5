//--blockDim=64 --gridDim=1
// Each thread seeds its own slot; the outer loop moves the slot j places on, the inner loop bumps
// it n times. The outer loop's first iteration touches only the thread's own slot, so the seed
// races only with later outer iterations: one barrier at the end of the outer body is enough.
__global__ void loop_entry_nest(const float *in, float *out, int m, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    for (int j = 0; j < m; j++) {
        for (int i = 0; i < n; i++) {
            s[(t + j) % 64] += in[64 + i];
        }
    }
    out[t] = s[t];
}
