//--blockDim=64 --gridDim=1
// Preconditions over pointers and memory: `__ptr_offset_bytes(p) == 0` is exact (the offset of
// `p` in its array), so it is assumed and pins the device function's `p` to the start of its
// block's row; `__requires_fresh_array` restates what autosync already assumes of pointer
// parameters (an array of their own); a precondition that reads shared memory is dropped,
// as reading there would be an access no thread performs. Race-free.

__device__ void scale(float *p, int n)
{
    __requires(__ptr_offset_bytes(p) == 0);
    __requires(n == 64 & __ptr_base(p) == __ptr_base(p));
    p[threadIdx.x] = p[threadIdx.x] * 2.0f;
}

__global__ void gpuverify_pointer_facts(float *data, int n)
{
    __requires_fresh_array(data);
    __shared__ float s[64];
    __requires(s[0] == 0.0f);
    s[threadIdx.x] = data[threadIdx.x];
    scale(data, n);
    __syncthreads();
    data[threadIdx.x] += s[63 - threadIdx.x];
}
