// Racy twin: the reduction runs only in odd lanes (a lane-dependent guard), so the
// shuffles read from lanes that do not take part and the lanes need not agree: the
// stores into the warp's slot are a real race.
static __device__ __forceinline__ float warp_total(float v) {
    for (int m = 16; m > 0; m >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, m);
    }
    return v;
}

__global__ void null_gate_racy(const float *x, const float *gate, float *out) {
    __shared__ float slot[4];
    const int tid = threadIdx.x;
    float v = x[blockIdx.x * blockDim.x + tid];
    if (gate != nullptr && (tid & 1)) {
        v = warp_total(v * gate[tid]);
        slot[tid / 32] = v;
    }
    __syncthreads();
    if (tid == 0) {
        out[blockIdx.x] = slot[0] + slot[1] + slot[2] + slot[3];
    }
}

void gated_sums(const float *x, const float *gate, float *out, int nblocks) {
    null_gate_racy<<<nblocks, 128>>>(x, gate, out);
}
