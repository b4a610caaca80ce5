//--blockDim=128 --gridDim=4
// Racy twin of grid_1d: each thread also writes the element after its own, which the
// next thread of the grid owns.
__global__ void grid_1d_racy(const float *in, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[i] = 2.0f * in[i];
        if (i + 1 < n) {
            out[i + 1] = 0.0f;
        }
    }
}
