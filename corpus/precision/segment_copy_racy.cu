//--blockDim=64 --gridDim=16
// Each block scales its own segment of n elements with a block-stride loop.
// Racy: the loop runs one element too far (i <= n), onto the first element of
// the next block's segment.
__global__ void segment_copy_racy(const float *in, float *out, int n)
{
    int b = blockIdx.x;
    for (int i = threadIdx.x; i <= n; i += blockDim.x) {
        out[b * n + i] = in[b * n + i] * 2.0f;
    }
}
