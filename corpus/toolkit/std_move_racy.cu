//--blockDim=128 --gridDim=4
// Racy twin of std_move: no barrier between the tile's stores and the mirrored read.
#include <utility>

struct pair2 {
    float lo, hi;
};

template <typename T>
__device__ void put(float *tile, T &&p) {
    T q = std::forward<T>(p);
    tile[threadIdx.x] = q.lo + q.hi;
}

__global__ void std_move_racy(const float *in, float *out) {
    __shared__ float tile[128];
    int g = blockIdx.x * 128 + threadIdx.x;
    pair2 p{in[g], 1.0f};
    put(tile, std::move(p));
    out[g] = tile[127 - threadIdx.x];
}
