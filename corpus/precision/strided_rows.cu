//--blockDim=128 --gridDim=[16,4,1]
// Production-style element-wise kernel over a strided 2-D tensor: block (x, y) handles row
// x of channel y, its threads stride over the columns. Two blocks can only reach one address
// if the row or channel strides make distinct elements overlap (a zero stride, rows closer
// than `ncols`): reported as a layout-race warning naming the strides, not as an error.

__global__ void strided_rows(float *dst, const float *src, int ncols, int stride_row, long long stride_channel) {
    const int row = blockIdx.x;
    const int channel = blockIdx.y;
    float *out = dst + channel * stride_channel;
    for (int col = threadIdx.x; col < ncols; col += blockDim.x) {
        out[row * stride_row + col] = 2.0f * src[(channel * gridDim.x + row) * ncols + col];
    }
}
