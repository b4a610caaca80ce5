//--blockDim=256 --gridDim=8
// Unpacking half2 pairs through cuda_fp16: the toolkit moves a __half2's bits into inline PTX
// through a pointer to unsigned int, which autosync reads as an unknown value (the data is
// opaque anyway). A shared tile of unpacked pairs, then each thread reads its mirror's.
#include <cuda_fp16.h>

__global__ void half2_view(const half2 *a, float2 *out) {
    __shared__ float2 tile[256];
    int g = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = __half22float2(a[g]);
    __syncthreads();
    out[g] = tile[255 - threadIdx.x];
}
