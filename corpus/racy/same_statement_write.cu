//--blockDim=64 --gridDim=1
// Unfixable: every thread of the block writes the same shared word in one statement.
__global__ void same_statement_write(int *out)
{
    __shared__ int s[1];
    int tid = threadIdx.x;
    s[0] = tid;
    __syncthreads();
    out[tid] = s[0];
}
