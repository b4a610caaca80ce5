//--gridDim=64
// Interleaved tree reduction for any block size up to 1024: in step s the
// threads whose index is a multiple of 2s add the partial sum s places to their
// right. The stride doubles under `s < blockDim.x`; it cannot wrap around to 0
// (the test would have failed long before), so no step has every thread adding
// into element 0.
__global__ void reduce_doubling(const float *in, float *out)
{
    __shared__ float acc[1024];
    unsigned int tid = threadIdx.x;
    acc[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) {
            acc[index] += acc[index + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = acc[0];
    }
}
