//--blockDim=64 --gridDim=4
// Racy twin of block_rows: the barrier that keeps the next row's stores to `part` after
// every thread read the previous row's result is missing.
__global__ void block_rows_racy(const int *row_start, const int *vals, int *row_max, int rows)
{
    __shared__ int part[64];
    int t = threadIdx.x;
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        int beg = row_start[r];
        int end = row_start[r + 1];
        int m = 0;
        for (int e = beg + t; e < end; e += blockDim.x) {
            m = max(m, vals[e]);
        }
        part[t] = m;
        __syncthreads();
        for (int s = 32; s > 0; s /= 2) {
            if (t < s) {
                part[t] = max(part[t], part[t + s]);
            }
            __syncthreads();
        }
        int best = part[0];
        if (t == 0) {
            row_max[r] = best;
        }
    }
}
