//--blockDim=64 --gridDim=2
// memset and memcpy on shared memory, correctly ordered: thread 0 clears a padded staging
// row with memset, the block copies its elements in with memcpy (one float each, into the
// interior), and neighbours are read only after the barriers. Race-free.
#include <string.h>

#define PAD 2

__global__ void memset_staging(const float *in, float *out)
{
    __shared__ float stage[64 + 2 * PAD];
    int t = threadIdx.x;
    int g = blockIdx.x * 64 + t;

    if (t == 0) {
        memset(stage, 0, sizeof(stage));
    }
    __syncthreads();
    memcpy(&stage[PAD + t], &in[g], sizeof(float));
    __syncthreads();

    out[g] = stage[t] + stage[t + 1] + stage[t + 2] + stage[t + 3] + stage[t + 4];
}
