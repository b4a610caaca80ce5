//--blockDim=96 --gridDim=1
// One producer warp and two consumer warps sharing one consumer branch.
__global__ void broadcast(const float *in, float *out)
{
    __shared__ float coeff[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        coeff[lane] = in[lane];
    } else {
        out[threadIdx.x - 32] = coeff[(lane + warp) % 32];
    }
}
