//--blockDim=64 --gridDim=1
// Unfixable: even threads write the odd slot that the odd threads read in the else
// branch of the same if; the branches split every warp, so there is no block- or
// warp-uniform point between the two accesses.
__global__ void if_else_race(const float *in, float *out)
{
    __shared__ float s[64];
    int tid = threadIdx.x;
    float got = 0.0f;
    if (tid % 2 == 0) {
        s[tid + 1] = in[tid];
    } else {
        got = s[tid];
    }
    out[tid] = got;
}
