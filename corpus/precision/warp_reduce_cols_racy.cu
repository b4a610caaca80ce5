// Racy twin: the lanes store their own partial sums, before the butterfly, into their
// warp's one slot: different values from every lane, a real write-write race that no
// barrier orders.
template <int width = 32>
static __device__ __forceinline__ float lane_total(float v) {
    for (int step = 1; step < width; step <<= 1) {
        v = v + __shfl_xor_sync(0xffffffff, v, step, width);
    }
    return v;
}

template <int ncols>
__global__ void warp_reduce_cols_racy(const float *x, float *out, int nrows) {
    __shared__ float slots[4];
    const int tid = threadIdx.x;
    float acc[ncols] = {0.0f};
    for (int r = tid; r < nrows; r += blockDim.x) {
        for (int c = 0; c < ncols; ++c) {
            acc[c] += x[c * nrows + r];
        }
    }
    for (int c = 0; c < ncols; ++c) {
        slots[tid / 32] = acc[c];
        acc[c] = lane_total(acc[c]);
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
    warp_reduce_cols_racy<3><<<nblocks, 128>>>(x, out, nrows);
}
