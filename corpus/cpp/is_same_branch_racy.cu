// Racy twin of is_same_branch: instantiated for int, `std::is_same_v<int, float>` is false,
// the barrier is skipped, and the mirrored read of the tile races with the other half's stores.
// The value is not in Clang's dump when the standard library comes from a precompiled
// prelude; autosync reads the arguments from the template's pattern.
#include <type_traits>

template <typename T>
__global__ void mirror_unless_float(const T *in, float *out) {
    __shared__ float tile[256];
    const int t = threadIdx.x;
    tile[t] = (float)in[blockIdx.x * 256 + t];
    if (std::is_same_v<T, float>) {
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = tile[255 - t];
}

template __global__ void mirror_unless_float<int>(const int *, float *);

void mirror(const int *in, float *out, int blocks) {
    mirror_unless_float<int><<<blocks, 256>>>(in, out);
}
