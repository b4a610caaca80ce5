//--blockDim=128 --gridDim=4
// Warp-persistent CSR row sums: each warp of the grid takes rows (vertices) in turn, its lanes
// stride over the row's entries (a trip count read from memory), a shuffle tree adds the lanes'
// sums, and lane 0 stores the row's total.
__global__ void warp_rows(const int *row_start, const float *vals, float *row_sum, int rows)
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
        for (int d = 16; d > 0; d /= 2) {
            acc += __shfl_down_sync(0xffffffff, acc, d);
        }
        if (lane == 0) {
            row_sum[r] = acc;
        }
    }
}
