//--blockDim=64 --gridDim=1
// Race-free twin of negative_product_racy: the same products with negative operands
// (back = -12), and every thread writes its own slot before the barrier.
__global__ void negative_product(int *out, int p)
{
    __requires(p == -2);
    __shared__ int s[64];
    int m = -3;
    int back = p * 3 + m * 2;
    s[back + 12 + threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
