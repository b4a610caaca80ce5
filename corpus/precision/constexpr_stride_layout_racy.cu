//--blockDim=32 --gridDim=[4,4]
// A warp stores a 16x16 tile of a row-major matrix whose row length is a field of the
// __grid_constant__ argument, picked by an `if constexpr` accessor that returns a size_t, as
// tensor libraries write them. The row index is dropped to its tile row (`row / 8`): lanes
// of one column write one element whatever the row length (an error: no barrier orders
// two writes of one statement).
struct matrix {
    float *data;
    int rows, cols;
    // The row length as a size_t (an int field widened, then narrowed by the caller).
    template <int axis> __device__ unsigned long stride() const {
        if constexpr (axis == 0) return cols;
        else if constexpr (axis == 1) return 1;
    }
};
struct problem { matrix out; };

__global__ void constexpr_stride_layout_racy(const __grid_constant__ problem p) {
    const int ld = p.out.stride<0>();
    float *tile = p.out.data + (blockIdx.y * 16) * ld + blockIdx.x * 16;
    int lane = threadIdx.x % 32;
    for (int i = 0; i < 2; ++i) {
        int row = i * 8 + lane / 4, col = 4 * (lane % 4);
        for (int k = 0; k < 4; ++k)
            tile[(row / 8) * ld + col + k] = row + col + k;
    }
}
