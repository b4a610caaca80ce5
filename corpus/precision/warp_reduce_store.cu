// Row sums: each warp reduces its lanes' partial sums with an xor butterfly, after which
// every lane of the warp holds the same bits (each step adds a lane's value and its
// partner's, and float addition commutes). All 32 lanes then store that one value into
// the warp's slot: a write-write race in which every writer stores the same value, so
// benign (a warning; `--strict` reports it). A second butterfly over the slots follows.
template <int width = 32>
static __device__ __forceinline__ float lane_sum(float v) {
#pragma unroll
    for (int mask = width / 2; mask > 0; mask >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, mask, width);
    }
    return v;
}

__global__ void warp_reduce_store(const float *rows, float *sums, int ncols) {
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
    warp_reduce_store<<<nrows, 256>>>(rows, sums, ncols);
}
