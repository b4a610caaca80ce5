//--blockDim=64 --gridDim=1
// Double-buffered producer/consumer loop without synchronization: slot k%2 is
// filled in iteration k and refilled in iteration k+2.
__global__ void double_buffer(const float *in, float *out, int iters)
{
    __shared__ float slots[2][32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int k = 0; k < iters; ++k) {
            slots[k % 2][lane] = in[k * 32 + lane] * 2.0f;
        }
    } else {
        for (int k = 0; k < iters; ++k) {
            out[k * 32 + lane] = slots[k % 2][31 - lane];
        }
    }
}
