//--blockDim=128 --gridDim=[16,4,1]
// Racy twin of strided_rows: the channel offset is dropped, so the blocks of every channel
// write the same row. Both blocks touch the same element (same row, same column) whatever the
// strides are: a race for every layout, an error.

__global__ void strided_rows_racy(float *dst, const float *src, int ncols, int stride_row, long long stride_channel) {
    const int row = blockIdx.x;
    const int channel = blockIdx.y;
    float *out = dst;
    for (int col = threadIdx.x; col < ncols; col += blockDim.x) {
        out[row * stride_row + col] = 2.0f * src[(channel * gridDim.x + row) * ncols + col];
    }
}
