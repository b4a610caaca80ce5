//--blockDim=64 --gridDim=1
// Comments and blank lines between the statements: the barrier must land between
// the racing statements without disturbing the comments around them.
__global__ void comments_blank(const float *in, float *out)
{
    __shared__ float s[64];

    int t = threadIdx.x;   // thread index

    /* Stage the input: one element per thread. */
    s[t] = in[t];

    // The reversed read below sees other threads' stores.

    /*
     * Reverse the block.
     */
    out[t] = s[63 - t];  /* done */
}
