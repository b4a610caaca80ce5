//--blockDim=64 --gridDim=4
// Racy twin of vote_loop: without the barrier between staging a neighbour and reading the
// next thread's slot, the read races with that thread's store.
__global__ void vote_loop_racy(const int *row_start, const int *col, int *below, int vertices)
{
    __shared__ int staged[64];
    int t = threadIdx.x;
    for (int v = blockIdx.x; v < vertices; v += gridDim.x) {
        int end = row_start[v + 1];
        int count = 0;
        for (int e = row_start[v] + t; __syncthreads_or(e < end); e += blockDim.x) {
            int nei = v;
            if (e < end) {
                nei = col[e];
            }
            staged[t] = nei;
            count += __syncthreads_count(staged[(t + 1) % 64] < v);
        }
        if (t == 0) {
            below[v] = count;
        }
    }
}
