//--blockDim=96 --gridDim=1
// Defect (count mismatch): the producer arrives on barrier 1 announcing 64 threads,
// the two consumer warps sync on barrier 1 announcing 96.
__global__ void count_mismatch(const float *in, float *out)
{
    __shared__ float data[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        data[lane] = in[lane];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 96;" ::: "memory");
        out[threadIdx.x - 32] = data[lane];
    }
}
