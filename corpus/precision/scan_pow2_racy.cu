//--blockDim=256 --gridDim=1
// Work-efficient exclusive scan of n <= 512 values in one block, n a power of
// two: the threads load the input with a block-stride loop, then the up-sweep
// and down-sweep phases run with a barrier at the top of every step. The loads
// and the store of 0 into the last element are separated by the up-sweep's
// first barrier. Racy: the down-sweep has lost its barrier, so a step reads
// what the step before wrote.
__global__ void scan_pow2_racy(const int *in, int *out, int n)
{
    __shared__ int buf[512];
    int tid = threadIdx.x;
    for (int i = tid; i < n; i += blockDim.x) {
        buf[i] = in[i];
    }
    int offset = 1;
    for (int d = n >> 1; d > 0; d >>= 1) {
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            buf[bi] += buf[ai];
        }
        offset *= 2;
    }
    if (tid == 0) {
        buf[n - 1] = 0;
    }
    for (int d = 1; d < n; d *= 2) {
        offset >>= 1;
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            int t = buf[ai];
            buf[ai] = buf[bi];
            buf[bi] += t;
        }
    }
    __syncthreads();
    for (int i = tid; i < n; i += blockDim.x) {
        out[i] = buf[i];
    }
}
