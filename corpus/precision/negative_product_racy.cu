//--blockDim=64 --gridDim=1
// Products with a negative operand steer the index: `p * 3` with p pinned to -2 by the
// requirement, and `m * 2` with m = -3. back = -12, so every thread writes s[0]: a race.
// A solver that took either product for an overflow would drop every execution through it
// and call the kernel clean.
__global__ void negative_product_racy(int *out, int p)
{
    __requires(p == -2);
    __shared__ int s[64];
    int m = -3;
    int back = p * 3 + m * 2;
    s[back + 12] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[0];
}
