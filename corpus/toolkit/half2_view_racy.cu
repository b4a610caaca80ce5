//--blockDim=256 --gridDim=8
// Racy twin of half2_view: without the barrier, a thread's read of its mirror's unpacked pair
// races with the mirror's store.
#include <cuda_fp16.h>

__global__ void half2_view_racy(const half2 *a, float2 *out) {
    __shared__ float2 tile[256];
    int g = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = __half22float2(a[g]);
    out[g] = tile[255 - threadIdx.x];
}
