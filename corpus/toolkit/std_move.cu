//--blockDim=128 --gridDim=4
// std::move and std::forward from the C++ library the toolkit brings (bodies in a system header
// Clang treats as builtins): each designates its argument. A local pair moved into a helper
// that stores it to a shared tile, read mirrored after a barrier.
#include <utility>

struct pair2 {
    float lo, hi;
};

template <typename T>
__device__ void put(float *tile, T &&p) {
    T q = std::forward<T>(p);
    tile[threadIdx.x] = q.lo + q.hi;
}

__global__ void std_move(const float *in, float *out) {
    __shared__ float tile[128];
    int g = blockIdx.x * 128 + threadIdx.x;
    pair2 p{in[g], 1.0f};
    put(tile, std::move(p));
    __syncthreads();
    out[g] = tile[127 - threadIdx.x];
}
