//--blockDim=128 --gridDim=1
// static_constexpr_local without its barrier: a thread reads the element the swizzle names,
// which another thread writes (RAW).
template <typename T> constexpr int lanes_for() { return sizeof(T) == 2 ? 64 : 32; }

template <typename T> __device__ int swizzled(int i) {
    static constexpr int period = lanes_for<T>() * 4;
    return (i % period) ^ (i / period + 1);
}

__global__ void static_constexpr_local_racy(float *out) {
    __shared__ float buf[128];
    unsigned t = threadIdx.x;
    buf[t] = out[t];

    out[t] = buf[swizzled<float>(t) % 128];
}
