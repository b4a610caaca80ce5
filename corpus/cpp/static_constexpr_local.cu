//--blockDim=128 --gridDim=1
// A `static constexpr` local of a device function template whose initializer calls a
// constexpr function: device code allows only constant initialization, so it is lowered as
// a constant computed where it is declared.
template <typename T> constexpr int lanes_for() { return sizeof(T) == 2 ? 64 : 32; }

template <typename T> __device__ int swizzled(int i) {
    static constexpr int period = lanes_for<T>() * 4;
    return (i % period) ^ (i / period + 1);
}

__global__ void static_constexpr_local(float *out) {
    __shared__ float buf[128];
    unsigned t = threadIdx.x;
    buf[t] = out[t];
    __syncthreads();
    out[t] = buf[swizzled<float>(t) % 128];
}
