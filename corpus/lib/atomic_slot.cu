//--blockDim=128 --gridDim=4
// Stream compaction with atomics. Inside a block, each kept value takes a slot from a shared
// counter (`slot = atomicAdd(&kept_count, 1); kept[slot] = v;`); after the block barrier the
// block's kept values are appended to the output through a global counter, the same pattern
// across the grid. atomicAdd with a uniform positive increment hands distinct values to
// distinct threads, so no two threads write one slot: race-free.

__global__ void atomic_slot(const float *in, float *out, int *out_count, float threshold)
{
    __shared__ int kept_count;
    __shared__ float kept[128];
    int t = threadIdx.x;

    if (t == 0) {
        kept_count = 0;
    }
    __syncthreads();

    float v = in[blockIdx.x * 128 + t];
    if (v > threshold) {
        int slot = atomicAdd(&kept_count, 1);
        kept[slot] = v;
    }
    __syncthreads();

    if (t < kept_count) {
        int slot = atomicAdd(out_count, 1);
        out[slot] = kept[t];
    }
}
