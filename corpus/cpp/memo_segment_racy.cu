//--blockDim=64 --gridDim=2
// Racy twin of memo_segment: the switch is off, so the scan works in the neighbour's shared
// row while the neighbour fills and reads it: the helper's read and write race with the
// neighbour's stores and its final read.
#define MEMO false
#define SEG 8

__device__ void prefix_in_place(int *seg, int carry)
{
    for (int i = 0; i < SEG; ++i) {
        carry += seg[i];
        seg[i] = carry;
    }
}

__global__ void memo_segment_racy(const int *in, int *out)
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
