//--blockDim=64 --gridDim=1
// A neighbour read and an own-slot update inside a depth-2 nest: the pair races
// within an inner iteration and across both back edges.
__global__ void loop_nest_d2_both(float *out, int n, int m)
{
    __shared__ float a[65];
    int t = threadIdx.x;
    float x = 0.0f;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            x = a[t + 1] * 0.5f;
            a[t] = x + j;
        }
        x = x + i;
    }
    out[t] = x;
}
