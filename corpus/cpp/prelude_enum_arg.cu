//--blockDim=128 --gridDim=1
// An enum only the CUDA prelude declares (`enum cudaRoundMode`) as a device function's
// parameter, compared with its enumerators: with `cudaRoundNearest` each thread reads back its
// own slot, so no barrier is needed. Clean.
__device__ int slot_for(int t, enum cudaRoundMode mode) {
    return mode == cudaRoundNearest ? t : (t + 1) % 128;
}

__global__ void prelude_enum_arg(float *out) {
    __shared__ float buf[128];
    int t = threadIdx.x;
    buf[t] = out[t];
    out[t] = buf[slot_for(t, cudaRoundNearest)];
}
