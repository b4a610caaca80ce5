//--blockDim=64 --gridDim=1
// One pair of accesses racing both inside an iteration (write-after-read) and
// across the back edge (read-after-write): needs two barriers in the loop body.
__global__ void loop_both(float *out, int n)
{
    __shared__ float a[65];
    int t = threadIdx.x;
    float x = 0.0f;
    for (int i = 0; i < n; i++) {
        x = a[t + 1];
        x = x + i;
        a[t] += x;
    }
    out[t] = x;
}
