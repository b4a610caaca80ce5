//--blockDim=64 --gridDim=1
// Two consumer warps take turns updating a shared accumulator each round
// (warp 0 then warp 1); without barriers the turns overlap.
__global__ void pingpong(const float *in, float *out, int iters)
{
    __shared__ float acc[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int r = 0; r < iters; ++r) {
            acc[lane] += in[r * 32 + lane];
        }
    } else {
        for (int r = 0; r < iters; ++r) {
            acc[lane] = acc[lane] * 0.5f;
            out[r * 32 + lane] = acc[lane];
        }
    }
}
