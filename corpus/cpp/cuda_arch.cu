//--blockDim=128 --gridDim=2
// Row smoothing with an architecture-specific exchange step. On Volta and later the author
// only re-converges the warp (__syncwarp) before overwriting the row, assuming every thread's
// right neighbour is in its own warp; lane 31 of each warp reads the first element of the
// next warp, so the device path races. The older-architecture and host paths use a block
// barrier and are race-free. autosync reads the device pass (__CUDA_ARCH__ = 800 by default),
// so it must see the racy path.

#define N 128

__host__ __device__ inline float blend(float self, float right)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(0.5f, self + right);
#else
    return 0.5f * (self + right);
#endif
}

__global__ void cuda_arch(const float *in, float *out)
{
    __shared__ float row[N];
    int t = threadIdx.x;
    row[t] = in[blockIdx.x * N + t];
    __syncthreads();

    float right = row[(t + 1) % N];
#ifdef __CUDA_ARCH__
#if __CUDA_ARCH__ >= 700
    __syncwarp();
#else
    __syncthreads();
#endif
#else
    __syncthreads();
#endif
    row[t] = blend(row[t], right);
    __syncthreads();

    out[blockIdx.x * N + t] = row[(t + N - 1) % N];
}
