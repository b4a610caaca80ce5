//--blockDim=64 --gridDim=1
// Unfixable: the racing store and load both sit inside a region that only half a
// warp executes, so no barrier can be placed between them without diverging.
__global__ void divergent_region(const float *in, float *out)
{
    __shared__ float s[16];
    int tid = threadIdx.x;
    float got = 0.0f;
    if (tid < 16) {
        s[tid] = in[tid];
        got = s[(tid + 1) % 16];
    }
    out[tid] = got;
}
