//--blockDim=64 --gridDim=1
// A depth-3 nest whose innermost body has a barrier between the read and the write
// but none between the write and the next iteration's read.
__global__ void backedge_d3(float *out, int n, int m, int p)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float x = 0.0f;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            for (int k = 0; k < p; k++) {
                x = s[(t + 63) % 64];
                __syncthreads();
                s[t] = x + i + j + k;
            }
        }
    }
    out[t] = x;
}
