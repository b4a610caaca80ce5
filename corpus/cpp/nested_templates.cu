//--blockDim=[16,8] --gridDim=[2,2]
// Padded tile transpose through a layout class template with a nested member class
// template: TileLayout<T, R, C>::Pass<ROWS_PER_PASS> stores a tile in ROWS / ROWS_PER_PASS
// passes and reads it back transposed. The kernel template takes the layout as a type and
// names everything through it (`typename Layout::Element`, `Layout::template Pass<8>`).
// One barrier separates the stores from the transposed reads: race-free.

template <typename T, int ROWS, int COLS>
struct TileLayout {
    typedef T Element;
    enum { kRows = ROWS, kCols = COLS, kPitch = COLS + 1 };

    template <int ROWS_PER_PASS>
    struct Pass {
        static const int kPasses = ROWS / ROWS_PER_PASS;

        __device__ static void store(Element (*tile)[kPitch], const Element *src, int ld, int x, int y)
        {
#pragma unroll
            for (int p = 0; p < kPasses; ++p) {
                int r = y + p * ROWS_PER_PASS;
                tile[r][x] = src[r * ld + x];
            }
        }

        __device__ static void load_transposed(Element *dst, Element (*tile)[kPitch], int ld, int x, int y)
        {
#pragma unroll
            for (int p = 0; p < kPasses; ++p) {
                int r = y + p * ROWS_PER_PASS;
                dst[r * ld + x] = tile[x][r];
            }
        }
    };
};

// Unused alternative layout for single-column tiles (a partial specialization).
template <typename T, int ROWS>
struct TileLayout<T, ROWS, 1> {
    typedef T Element;
    enum { kRows = ROWS, kCols = 1, kPitch = 1 };
};

template <typename Layout>
__global__ void nested_templates(const typename Layout::Element *in, typename Layout::Element *out, int width)
{
    typedef typename Layout::template Pass<8> Pass8;
    __shared__ typename Layout::Element tile[Layout::kRows][Layout::kPitch];

    int col0 = blockIdx.x * Layout::kCols;
    int row0 = blockIdx.y * Layout::kRows;
    Pass8::store(tile, in + row0 * width + col0, width, threadIdx.x, threadIdx.y);
    __syncthreads();
    Pass8::load_transposed(out + col0 * width + row0, tile, width, threadIdx.x, threadIdx.y);
}

template __global__ void nested_templates<TileLayout<float, 16, 16> >(const float *, float *, int);
