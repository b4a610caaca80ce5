//--blockDim=64 --gridDim=16
// Each block scales its own segment of n elements with a block-stride loop.
// The loop variable starts at threadIdx.x and only grows, so it stays within
// [0, n) and the segments of different blocks never meet.
__global__ void segment_copy(const float *in, float *out, int n)
{
    int b = blockIdx.x;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        out[b * n + i] = in[b * n + i] * 2.0f;
    }
}
