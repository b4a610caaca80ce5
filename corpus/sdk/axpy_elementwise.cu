//--blockDim=128 --gridDim=4
// Element-wise: every thread reads and writes only its own element of y, at the global
// thread index, and writes its own element of the ramp; the guard drops the tail of the
// last block. No pair of accesses needs the solver (`check --stats`).
__global__ void axpy_elementwise(float *y, const float *x, float *ramp, float a, float start, float step, int n) {
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    y[i] = a * x[i] + y[i];
    ramp[i] = start + (float)i * step;
}
