//--blockDim=64 --gridDim=2
// Shared-memory traffic hidden in __device__ helpers that take the shared array as
// a pointer argument; the kernel only sequences the helpers around a barrier.
#define SPAN 64

__device__ void stage_value(float *dst, const float *src, int dst_index, int src_index)
{
    dst[dst_index] = src[src_index];
}

__device__ float neighbour_sum(const float *buf, int i)
{
    return buf[i] + buf[(i + 1) % SPAN];
}

__global__ void device_helper(const float *in, float *out)
{
    __shared__ float buf[SPAN];
    int t = threadIdx.x;
    int g = blockIdx.x * SPAN + t;
    stage_value(buf, in, t, g);
    __syncthreads();
    out[g] = neighbour_sum(buf, t);
}
