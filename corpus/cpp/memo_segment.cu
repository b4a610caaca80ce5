//--blockDim=64 --gridDim=2
// A memoizing raking step, as block-scan libraries write it: each thread copies its row of the
// shared grid into a local cache, and a compile-time switch decides whether the scan works on
// the cache or in place. The helper gets its pointer from `MEMO ? cache : neighbour`, so its
// parameter may point into either array; with MEMO the cache (thread-private) is the one meant
// and the neighbour's row is never written. Race-free.
#define MEMO true
#define SEG 8

__device__ void prefix_in_place(int *seg, int carry)
{
    for (int i = 0; i < SEG; ++i) {
        carry += seg[i];
        seg[i] = carry;
    }
}

__global__ void memo_segment(const int *in, int *out)
{
    __shared__ int grid[64 * (SEG + 1)];
    int t = threadIdx.x;
    int *mine = &grid[t * (SEG + 1)];
    int *neighbour = &grid[((t + 1) % 64) * (SEG + 1)];
    for (int i = 0; i < SEG; ++i) {
        mine[i] = in[blockIdx.x * 64 * SEG + t * SEG + i];
    }
    int cache[SEG];
    for (int i = 0; i < SEG; ++i) {
        cache[i] = mine[i];
    }
    int *work = MEMO ? cache : neighbour;
    prefix_in_place(work, t);
    out[blockIdx.x * 64 + t] = work[SEG - 1] + mine[0];
}
