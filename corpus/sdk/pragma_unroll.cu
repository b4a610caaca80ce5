//--blockDim=64 --gridDim=2
// Loads four rows per thread and sums a mirrored column, both loops marked for
// unrolling; one barrier separates the loads from the sums.
#define LANES 64
#define DEPTH 4

__global__ void pragma_unroll(const float *in, float *out)
{
    __shared__ float rows[DEPTH * LANES];
    int t = threadIdx.x;
    int base = blockIdx.x * DEPTH * LANES;

#pragma unroll
    for (int k = 0; k < DEPTH; ++k) {
        rows[k * LANES + t] = in[base + k * LANES + t];
    }
    __syncthreads();

    float acc = 0.0f;
    #pragma unroll 4
    for (int k = 0; k < DEPTH; ++k) {
        acc += rows[k * LANES + (LANES - 1 - t)];
    }
    out[blockIdx.x * LANES + t] = acc;
}
