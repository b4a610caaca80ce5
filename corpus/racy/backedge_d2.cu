//--blockDim=64 --gridDim=1
// Same defect one level deeper: the race straddles the back edge of the inner loop
// (and, at the last inner iteration, the back edge of the outer loop).
__global__ void backedge_d2(float *out, int n, int m)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float x = 0.0f;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            x = s[(t + 1) % 64];
            __syncthreads();
            s[t] = x * 0.5f + j;
        }
    }
    out[t] = x;
}
