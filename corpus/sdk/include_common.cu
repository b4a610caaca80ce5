//--blockDim=64 --gridDim=2
// Sum of squares per block: lane 0 of each warp folds its warp's squares, then
// thread 0 adds the per-warp totals. Sizes and helpers come from "common.h".
#include "common.h"

__global__ void include_common(const float *in, float *out)
{
    __shared__ float sq[BLOCK_SIZE];
    __shared__ float warp_total[BLOCK_SIZE / WARP_WIDTH];
    int t = threadIdx.x;
    sq[t] = squared(in[blockIdx.x * BLOCK_SIZE + t]);
    __syncthreads();

    if (LANE_OF(t) == 0) {
        float acc = 0.0f;
        for (int k = 0; k < WARP_WIDTH; ++k) {
            acc += sq[t + k];
        }
        warp_total[WARP_OF(t)] = acc;
    }
    __syncthreads();

    if (t == 0) {
        out[blockIdx.x] = warp_total[0] + warp_total[1];
    }
}
