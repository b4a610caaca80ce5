//--blockDim=64 --gridDim=32
// Interval bisection for a root of a monotone function per block: every
// thread evaluates the function at one of 64 points of the current interval;
// thread 0 then picks the sub-interval with the sign change and decides whether
// the interval is small enough. The loop ends on a flag in shared memory that
// thread 0 writes before a barrier and every thread reads after it: all threads
// read the same value, so the loop stays uniform and its barriers aligned.
__global__ void bisect_flag(const float *coeff, float *roots, int max_iter)
{
    __shared__ float lo[1];
    __shared__ float width[1];
    __shared__ float sign[64];
    __shared__ int converged[1];
    int tid = threadIdx.x;
    float c0 = coeff[blockIdx.x * 2];
    float c1 = coeff[blockIdx.x * 2 + 1];
    if (tid == 0) {
        lo[0] = -1.0f;
        width[0] = 2.0f;
        converged[0] = 0;
    }
    __syncthreads();
    for (int it = 0; it < max_iter; it++) {
        float x = lo[0] + width[0] * tid / 64.0f;
        sign[tid] = c0 + c1 * x;
        __syncthreads();
        if (tid == 0) {
            int k = 0;
            for (int j = 1; j < 64; j++) {
                if (sign[j - 1] * sign[j] <= 0.0f) {
                    k = j - 1;
                }
            }
            lo[0] = lo[0] + width[0] * k / 64.0f;
            width[0] = width[0] / 64.0f;
            converged[0] = width[0] < 1e-6f;
        }
        __syncthreads();
        if (converged[0] == 1) {
            break;
        }
    }
    if (tid == 0) {
        roots[blockIdx.x] = lo[0];
    }
}
