//--blockDim=128 --gridDim=4
// Racy twin of atomic_slot: each kept value takes a slot from a shared counter, but the slot
// is folded into a 32-entry ring (`slot % 32`). The counter's values are distinct, the ring
// entries are not: two threads write one entry in the same statement (no barrier can order
// that; the kernel needs a bigger buffer or a different slot).

__global__ void atomic_slot_racy(const float *in, float *out, float threshold)
{
    __shared__ int kept_count;
    __shared__ float ring[32];
    int t = threadIdx.x;

    if (t == 0) {
        kept_count = 0;
    }
    __syncthreads();

    float v = in[blockIdx.x * 128 + t];
    if (v > threshold) {
        int slot = atomicAdd(&kept_count, 1);
        ring[slot % 32] = v;
    }
    __syncthreads();

    if (t < 32) {
        out[blockIdx.x * 32 + t] = ring[t];
    }
}
