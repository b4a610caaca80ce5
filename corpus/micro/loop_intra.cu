//--blockDim=64 --gridDim=1
// A loop whose only race is inside one iteration: row i is written and then read
// at a neighbour's column in the same iteration; different iterations use different rows.
__global__ void loop_intra(const float *in, float *out, int n)
{
    __shared__ float rows[4 * 64];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        rows[i * 64 + t] = in[i * 64 + t];
        acc += rows[i * 64 + (t + 1) % 64];
    }
    out[t] = acc;
}
