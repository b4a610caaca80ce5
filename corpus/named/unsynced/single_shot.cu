//--blockDim=64 --gridDim=1
// Warp 0 stages values that warp 1 consumes; nothing orders the two roles yet.
__global__ void single_shot(const float *in, float *out)
{
    __shared__ float stage[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        stage[lane] = in[lane] + 1.0f;
    } else {
        out[lane] = stage[31 - lane];
    }
}
