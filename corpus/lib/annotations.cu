//--blockDim=64 --gridDim=1
// GPUVerify-style annotations that make a kernel race-free: each thread stores a value and a
// weight (slots t and t + 64) and, in mode 1, reads slot (t + offset) % 128. Only offset 64
// (its own weight) is safe, and the precondition says so with __implies; in the other modes
// every thread reads its own value. Race-free under the precondition.

__global__ void annotations(const float *in, float *out, int mode, int offset)
{
    __requires(__implies(mode == 1, offset == 64));
    __requires(offset >= 0);
    __shared__ float s[128];
    int t = threadIdx.x;

    s[t] = in[t];
    s[t + 64] = in[t + 64] * 0.5f;
    if (mode == 1) {
        out[t] = s[(t + offset) % 128];
    } else {
        out[t] = s[t];
    }
}
