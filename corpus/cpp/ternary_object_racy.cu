//--blockDim=128 --gridDim=1
// ternary_object without its barrier: a thread reads the element another thread stores (RAW).
__global__ void ternary_object_racy(const float4 *src, float *out, int n) {
    __shared__ float4 tile[128];
    int t = threadIdx.x;
    const float4 v = t < n ? src[t] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    tile[t] = v;

    const float4 w = tile[127 - t];
    out[t] = w.x + w.y + w.z + w.w;
}
