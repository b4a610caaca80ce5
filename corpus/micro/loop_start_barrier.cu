//--blockDim=64 --gridDim=1
// A write before the loop and a write at the end of each iteration both feed the
// read at the top of the body: one barrier at the start of the body fixes both.
__global__ void loop_start_barrier(const float *in, float *out, int n)
{
    __shared__ float buf[2 * 64];
    int t = threadIdx.x;
    buf[t] = in[t];
    for (int i = 0; i < n; i++) {
        int cur = i % 2;
        float x = buf[cur * 64 + (t + 1) % 64];
        buf[(1 - cur) * 64 + t] = x * 0.5f;
    }
    out[t] = buf[(n % 2) * 64 + t];
}
