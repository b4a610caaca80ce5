//--blockDim=64 --gridDim=1
// Defect (deadlock): warp 0 waits on barrier 1 then 2, warp 1 waits on 2 then 1;
// each barrier needs both warps, so neither first sync can ever complete.
__global__ void deadlock_cycle(float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    int warp = t / 32;
    s[t] = t;
    if (warp == 0) {
        asm volatile("bar.sync 1, 64;");
        asm volatile("bar.sync 2, 64;");
    } else {
        asm volatile("bar.sync 2, 64;");
        asm volatile("bar.sync 1, 64;");
    }
    out[t] = s[t];
}
