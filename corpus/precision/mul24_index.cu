//--blockDim=64 --gridDim=16
// Index arithmetic with 24-bit multiplies, as older kernels write it: exact for
// the sizes a launch can have, so the global index is distinct per thread.
__global__ void mul24_index(const float *in, float *out)
{
    __shared__ float s[64];
    int gid = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
    s[threadIdx.x] = in[gid];
    __syncthreads();
    out[gid] = s[63 - threadIdx.x];
}
