//--blockDim=64 --gridDim=2
// An intra-block race on global memory: each block writes its own segment and reads
// a rotated element of that segment; blocks never touch each other's segments.
__global__ void global_mem(float *scratch, float *out)
{
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    scratch[base + t] = t * 2.0f;
    float v = scratch[base + (t + 5) % 64];
    out[base + t] = v;
}
