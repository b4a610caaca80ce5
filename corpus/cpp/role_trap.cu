//--blockDim=128 --gridDim=1
// The producer warp's path ends in `brkpt` (an unimplemented branch of a helper, as a
// library writes for an architecture it does not support) whatever the data, while the
// consumers' paths complete: thread 0 traps on every path, so the kernel never completes.
__device__ void not_implemented() { asm volatile("brkpt;"); }

__global__ void role_trap(const float *in, float *out, int n)
{
    __shared__ float tile[96];
    int warp = threadIdx.x / 32;
    if (warp == 0) {
        if (n > 0)
            not_implemented();
        else
            asm volatile("trap;");
        return;
    }
    int t = threadIdx.x - 32;
    tile[t] = in[t];
    out[t] = tile[t] * 2.0f;
}
