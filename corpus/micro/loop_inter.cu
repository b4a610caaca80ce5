//--blockDim=64 --gridDim=1
// A loop whose only races cross the back edge: iteration i reads buffer i%2 and
// writes the other buffer, which the neighbour reads in iteration i+1.
__global__ void loop_inter(float *out, int n)
{
    __shared__ float pingpong[2 * 64];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = 0; i < n; i++) {
        int cur = i % 2;
        v = pingpong[cur * 64 + (t + 1) % 64];
        pingpong[(1 - cur) * 64 + t] = v * 0.5f + 1.0f;
    }
    out[t] = v;
}
