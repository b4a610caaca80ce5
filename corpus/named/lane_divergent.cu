//--blockDim=64 --gridDim=1
// Defect (warp divergence): the named barrier sits under a lane-dependent branch,
// so only half of each warp reaches it.
__global__ void lane_divergent(const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (threadIdx.x % 2 == 0) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
    }
    out[t] = s[t];
}
