//--blockDim=64 --gridDim=4
// Block-per-vertex neighbour scan: the block's threads stride over a vertex's edge list and
// the loop test is a block-wide vote (__syncthreads_or), so every thread runs the same number
// of iterations and the barriers in the body are aligned. Each iteration stages a neighbour
// id in shared memory and counts, with __syncthreads_count, how many staged neighbours are
// below the vertex.
__global__ void vote_loop(const int *row_start, const int *col, int *below, int vertices)
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
            __syncthreads();
            count += __syncthreads_count(staged[(t + 1) % 64] < v);
        }
        if (t == 0) {
            below[v] = count;
        }
    }
}
