//--blockDim=64 --gridDim=1
// A tile's row length named by a variable template (`template <typename T> constexpr int
// WORDS_PER_ROW = 16 / sizeof(T);`) inside a static constexpr member: the member is the
// constant its initializer gives, so each thread's row is its own. The block syncs before
// each thread reads its neighbour's row.
template <typename T> constexpr int WORDS_PER_ROW = 16 / sizeof(T);

template <typename T> struct row_tile {
    static constexpr int width = WORDS_PER_ROW<T> > 2 ? WORDS_PER_ROW<T> : 2;
    T data[64 * width];
};

__global__ void variable_template_stride(unsigned short *out) {
    __shared__ row_tile<unsigned short> tile;
    constexpr int w = row_tile<unsigned short>::width;
    for (int k = 0; k < w; ++k)
        tile.data[threadIdx.x * w + k] = threadIdx.x + k;
    __syncthreads();
    out[threadIdx.x] = tile.data[((threadIdx.x + 1) % 64) * w];
}
