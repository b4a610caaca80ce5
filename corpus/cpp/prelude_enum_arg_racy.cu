//--blockDim=128 --gridDim=1
// prelude_enum_arg with `cudaRoundZero` passed: each thread reads its neighbour's slot, which
// the neighbour writes (RAW); a barrier between the two fixes it.
__device__ int slot_for(int t, enum cudaRoundMode mode) {
    return mode == cudaRoundNearest ? t : (t + 1) % 128;
}

__global__ void prelude_enum_arg_racy(float *out) {
    __shared__ float buf[128];
    int t = threadIdx.x;
    buf[t] = out[t];
    out[t] = buf[slot_for(t, cudaRoundZero)];
}
