// Several column sums per block, kept in a thread-local array: each lane accumulates
// `acc[c]`, a warp-wide xor butterfly makes the warp's lanes agree on it, every lane
// stores it into its warp's slot (a benign write-write race: one value), and a second
// butterfly over the slots finishes the sum. The value reaches the store through the
// local array, whose element the checker follows from the reduction to the load.
template <int width = 32>
static __device__ __forceinline__ float lane_total(float v) {
    for (int step = 1; step < width; step <<= 1) {
        v = v + __shfl_xor_sync(0xffffffff, v, step, width);
    }
    return v;
}

template <int ncols>
__global__ void warp_reduce_cols(const float *x, float *out, int nrows) {
    __shared__ float slots[4];
    const int tid = threadIdx.x;
    float acc[ncols] = {0.0f};
    for (int r = tid; r < nrows; r += blockDim.x) {
        for (int c = 0; c < ncols; ++c) {
            acc[c] += x[c * nrows + r];
        }
    }
    for (int c = 0; c < ncols; ++c) {
        acc[c] = lane_total(acc[c]);
        slots[tid / 32] = acc[c];
        __syncthreads();
        if (tid < 32) {
            acc[c] = lane_total(tid < 4 ? slots[tid] : 0.0f);
        }
        __syncthreads();
    }
    if (tid < ncols) {
        out[blockIdx.x * ncols + tid] = acc[tid];
    }
}

void column_sums(const float *x, float *out, int nrows, int nblocks) {
    warp_reduce_cols<3><<<nblocks, 128>>>(x, out, nrows);
}
