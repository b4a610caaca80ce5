//--blockDim=64 --gridDim=1
// Unfixable: one statement reads the right neighbour and writes its own slot, so the
// neighbour's write races with this read inside a single statement.
__global__ void same_statement(const float *in, float *out)
{
    __shared__ float s[65];
    int tid = threadIdx.x;
    s[tid] = in[tid];
    __syncthreads();
    s[tid] += s[tid + 1];
    __syncthreads();
    out[tid] = s[tid];
}
