//--blockDim=128 --gridDim=4
// Racy twin of warp_rows: every lane, not only lane 0, stores its partial sum into the row's
// slot.
__global__ void warp_rows_racy(const int *row_start, const float *vals, float *row_sum, int rows)
{
    int lane = threadIdx.x % 32;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int warps = gridDim.x * blockDim.x / 32;
    for (int r = warp; r < rows; r += warps) {
        int beg = row_start[r];
        int end = row_start[r + 1];
        float acc = 0.0f;
        for (int e = beg + lane; e < end; e += 32) {
            acc += vals[e];
        }
        row_sum[r] = acc;
    }
}
