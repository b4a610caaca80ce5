//--blockDim=128 --gridDim=4
// Block-wide tree reduction: halve the active range each step, with a barrier
// after every step so partial sums are visible before they are consumed.
__global__ void reduce_tree(const float *in, float *partial, int n)
{
    __shared__ float scratch[128];
    unsigned int tid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + tid;
    float v = 0.0f;
    if (gid < n) {
        v = in[gid];
    }
    scratch[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            scratch[tid] += scratch[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        partial[blockIdx.x] = scratch[0];
    }
}
