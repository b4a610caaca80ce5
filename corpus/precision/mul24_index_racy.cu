//--blockDim=64 --gridDim=16
// Index arithmetic with 24-bit multiplies, as older kernels write it: exact for
// the sizes a launch can have. Racy: the block stride is half the block, so
// neighbouring blocks store to the same elements.
__global__ void mul24_index_racy(const float *in, float *out)
{
    __shared__ float s[64];
    int gid = __umul24(blockIdx.x, blockDim.x / 2) + threadIdx.x;
    s[threadIdx.x] = in[gid];
    __syncthreads();
    out[gid] = s[63 - threadIdx.x];
}
