//--blockDim=128 --gridDim=1
// A conditional whose arms are objects and one arm reads memory (`i < n ? src[i] :
// make_float4(...)`): the load runs only for the threads that take that arm. Clean with its
// barrier.
__global__ void ternary_object(const float4 *src, float *out, int n) {
    __shared__ float4 tile[128];
    int t = threadIdx.x;
    const float4 v = t < n ? src[t] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    tile[t] = v;
    __syncthreads();
    const float4 w = tile[127 - t];
    out[t] = w.x + w.y + w.z + w.w;
}
