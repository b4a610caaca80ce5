//--blockDim=64 --gridDim=1
// Single-buffer producer/consumer loop without synchronization: each iteration's
// read races with the producer's write of the same iteration (read-after-write)
// and of the next iteration (write-after-read).
__global__ void pipeline(const float *in, float *out, int iters)
{
    __shared__ float buf[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            buf[lane] = in[k * 32 + lane];
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            out[k * 32 + lane] = buf[(lane + 1) % 32];
        }
    }
}
