//--blockDim=64 --gridDim=4
// Block-persistent CSR row maxima: each block takes rows in turn, its threads stride over the
// row's entries (a trip count read from memory), a shared-memory tree reduces them, and every
// thread reads the result (thread 0 stores it). The row loop is block-uniform, so its
// barriers are aligned.
__global__ void block_rows(const int *row_start, const int *vals, int *row_max, int rows)
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
        __syncthreads();
    }
}
