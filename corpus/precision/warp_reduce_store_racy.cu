// Racy twin: the butterfly stops before its last step (mask 1), so lanes 2k and 2k+1
// hold sums over different halves of the warp; all lanes store into one slot with
// different values: a real write-write race, which no barrier can order.
template <int width = 32>
static __device__ __forceinline__ float lane_sum(float v) {
#pragma unroll
    for (int mask = width / 2; mask > 1; mask >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, mask, width);
    }
    return v;
}

__global__ void warp_reduce_store_racy(const float *rows, float *sums, int ncols) {
    __shared__ float partial[8];
    const int lane = threadIdx.x;
    float acc = 0.0f;
    for (int c = lane; c < ncols; c += blockDim.x) {
        acc += rows[blockIdx.x * ncols + c];
    }
    acc = lane_sum(acc);
    partial[lane / 32] = acc;
    __syncthreads();
    if (lane < 32) {
        acc = lane < 8 ? partial[lane] : 0.0f;
        acc = lane_sum(acc);
        if (lane == 0) {
            sums[blockIdx.x] = acc;
        }
    }
}

void row_sums(const float *rows, float *sums, int nrows, int ncols) {
    warp_reduce_store_racy<<<nrows, 256>>>(rows, sums, ncols);
}
