//--blockDim=64 --gridDim=1
// Tiles named through an alias template whose arguments are named constants and whose
// trailing parameters keep their defaults (`tile16<ROWS, COLS>` for
// `tile<unsigned short, ROWS, COLS, true, 0>`), as tile libraries name their shared tiles:
// the element stride of an array of them is the record's size. Each warp fills its own
// tile, the block syncs, and each thread reads the other warp's tile.
constexpr int ROWS = 8;
constexpr int COLS = 32;

template <typename T, int R, int C, bool swizzled = true, int swizzle_bytes = 0> struct tile {
    T data[R * C];
};
template <int R, int C, bool swizzled = true, int swizzle_bytes = 0>
using tile16 = tile<unsigned short, R, C, swizzled, swizzle_bytes>;

__global__ void alias_template_constant_args(unsigned short *out) {
    extern __shared__ int4 dynamic_smem[];
    tile16<ROWS, COLS> *tiles = reinterpret_cast<tile16<ROWS, COLS> *>(&dynamic_smem[0]);
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int r = 0; r < ROWS; ++r)
        tiles[warp].data[r * COLS + lane] = r + lane;
    __syncthreads();
    out[threadIdx.x] = tiles[1 - warp].data[lane];
}
