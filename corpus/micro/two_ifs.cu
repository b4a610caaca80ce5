//--blockDim=64 --gridDim=1
// A race between two conditional blocks whose guards depend on the thread id:
// even threads read two slots ahead, threads divisible by six update their own slot.
__global__ void two_ifs(float *out)
{
    __shared__ float a[66];
    int t = threadIdx.x;
    float x = 0.0f;
    if (t % 2 == 0) {
        x = a[t + 2];
    }
    if (t % 6 == 0) {
        a[t] += x;
    }
    out[t] = x;
}
