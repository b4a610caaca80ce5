//--blockDim=64 --gridDim=1
// A brace-less for body that is one statement: it reads buffer i%2 and writes the
// other buffer, so it only races across the back edge. The barrier has to go inside
// the loop body, which means the fix must add braces.
__global__ void braceless_for(float *out, int n)
{
    __shared__ float s[2 * 64];
    int t = threadIdx.x;
    for (int i = 0; i < n; i++)
        s[((i + 1) % 2) * 64 + t] = s[(i % 2) * 64 + (t + 1) % 64] * 0.5f;
    out[t] = s[(n % 2) * 64 + t];
}
