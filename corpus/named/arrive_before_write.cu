//--blockDim=64 --gridDim=1
// Defect (race): the producer arrives on barrier 1 before it writes the buffer,
// so the consumer's read after its sync is not ordered after the write.
__global__ void arrive_before_write(const float *in, float *out)
{
    __shared__ float buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        asm volatile("bar.arrive 1, 64;" ::: "memory");
        buf[lane] = in[lane];
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[lane] = buf[31 - lane];
    }
}
