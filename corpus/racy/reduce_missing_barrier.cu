//--blockDim=128 --gridDim=2
// A tree reduction whose loop lost its barrier. The racing read and write are in one
// statement, but they never race within an iteration, only across the back edge, so
// a barrier at the end of the loop body does fix it.
__global__ void reduce_missing_barrier(const float *in, float *partial)
{
    __shared__ float s[128];
    unsigned int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * 128 + tid];
    __syncthreads();
    for (unsigned int half = 64; half > 0; half >>= 1) {
        if (tid < half) s[tid] += s[tid + half];
    }
    if (tid == 0) {
        partial[blockIdx.x] = s[0];
    }
}
