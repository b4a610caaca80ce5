//--blockDim=128 --gridDim=1
// Defect (barrier ID collision): two unrelated warp pairs both use barrier 1 with a
// count of 64, so any two of the four warps can complete a generation together.
__global__ void id_collision(const float *in, float *out)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    int warp = t / 32;
    s[t] = in[t];
    if (warp < 2) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = s[t ^ 32];
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = s[t ^ 32] * 2.0f;
    }
}
