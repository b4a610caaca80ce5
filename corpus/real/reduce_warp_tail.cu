//--blockDim=256 --gridDim=8
// Sum of n floats, one partial sum per block. Every thread first accumulates
// a grid-stride range of the input (two elements per step), the block then
// halves its partial sums in shared memory with the step sizes unrolled, and
// the last 64 partial sums are folded by warp 0 with shuffles: no barrier is
// needed once a single warp holds all live values. Thread 0 stores the result.
#define THREADS 256
#define FULL_MASK 0xffffffffu

__device__ float warp_sum(float v)
{
    v += __shfl_down_sync(FULL_MASK, v, 16);
    v += __shfl_down_sync(FULL_MASK, v, 8);
    v += __shfl_down_sync(FULL_MASK, v, 4);
    v += __shfl_down_sync(FULL_MASK, v, 2);
    v += __shfl_down_sync(FULL_MASK, v, 1);
    return v;
}

__global__ void reduce_warp_tail(const float *in, float *partial, int n)
{
    __shared__ float s[THREADS];
    int tid = threadIdx.x;
    int i = blockIdx.x * (THREADS * 2) + tid;
    int grid_step = THREADS * 2 * gridDim.x;

    float acc = 0.0f;
    while (i < n) {
        acc += in[i];
        if (i + THREADS < n) {
            acc += in[i + THREADS];
        }
        i += grid_step;
    }
    s[tid] = acc;
    __syncthreads();

    // Unrolled tree steps while more than one warp holds live values.
    if (THREADS >= 512) {
        if (tid < 256) {
            s[tid] = acc = acc + s[tid + 256];
        }
        __syncthreads();
    }
    if (THREADS >= 256) {
        if (tid < 128) {
            s[tid] = acc = acc + s[tid + 128];
        }
        __syncthreads();
    }
    if (THREADS >= 128) {
        if (tid < 64) {
            s[tid] = acc = acc + s[tid + 64];
        }
        __syncthreads();
    }

    // Warp 0 folds the remaining 64 values: two per lane, then shuffles.
    if (tid < 32) {
        acc = acc + s[tid + 32];
        acc = warp_sum(acc);
        if (tid == 0) {
            partial[blockIdx.x] = acc;
        }
    }
}
