//--blockDim=128 --gridDim=4
// A 1-D grid-stride loop: every thread of the grid starts at its global index and steps by
// the number of threads in the grid, so no two threads ever touch the same element.
__global__ void grid_1d(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[i] = 2.0f * in[i] + 1.0f;
    }
}
