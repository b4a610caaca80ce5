//--blockDim=64 --gridDim=1
// Defect (arrive-only completion): the consumer warp arrives where it should sync,
// so generation 1 of barrier 1 is completed by two arrivals and orders nothing.
__global__ void arrive_only(const float *in, float *out)
{
    __shared__ float data[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        data[lane] = in[lane];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        out[lane] = data[31 - lane];
    }
}
