// `std::is_same_v<T, float>` in a plain `if` (not `if constexpr`): the float instantiation
// takes the barrier, so the mirrored read of the tile is ordered after every thread's store.
// The value is not in Clang's dump when the standard library comes from a precompiled
// prelude; autosync reads the arguments from the template's pattern.
#include <type_traits>

template <typename T>
__global__ void mirror_if_float(const T *in, float *out) {
    __shared__ float tile[256];
    const int t = threadIdx.x;
    tile[t] = (float)in[blockIdx.x * 256 + t];
    if (std::is_same_v<T, float>) {
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = tile[255 - t];
}

template __global__ void mirror_if_float<float>(const float *, float *);

void mirror(const float *in, float *out, int blocks) {
    mirror_if_float<float><<<blocks, 256>>>(in, out);
}
