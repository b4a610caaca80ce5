//--blockDim=64 --gridDim=1
// Two races inside a depth-2 loop nest, both within one inner iteration;
// a single barrier in the inner body separates both.
__global__ void loop_nest_d2(float *out, int n, int m)
{
    __shared__ float a[6 * 64];
    __shared__ float b[6 * 64];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            int row = (i * m + j) * 64;
            a[row + t] = acc + 1.0f;
            b[row + t] = acc - 1.0f;
            float x = a[row + (t + 1) % 64];
            float y = b[row + (t + 63) % 64];
            acc += x * y;
        }
    }
    out[t] = acc;
}
