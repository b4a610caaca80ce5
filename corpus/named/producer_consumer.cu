//--blockDim=64 --gridDim=1
// Single-shot producer/consumer: warp 0 fills a staging buffer and arrives on
// barrier 1; warp 1 waits on barrier 1 and then reads the buffer.
__global__ void producer_consumer(const float *in, float *out)
{
    __shared__ float stage[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        stage[lane] = in[lane] * 2.0f;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[lane] = stage[31 - lane];
    }
}
