//--blockDim=64 --gridDim=1
// A halving reduction in a while loop whose bound n stays symbolic (uniform):
// the read of the upper half races with the initial store and with the
// previous iteration's update.
__global__ void while_uniform(const float *in, float *out, int n)
{
    __requires(n <= 64);
    __shared__ float a[64];
    int t = threadIdx.x;
    a[t] = in[t];
    int width = n;
    while (width > 1) {
        int half = width / 2;
        if (t < half) {
            float v = a[t + half];
            a[t] = a[t] + v;
        }
        width = half;
    }
    if (t == 0) {
        out[0] = a[0];
    }
}
