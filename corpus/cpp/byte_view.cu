//--blockDim=128 --gridDim=1
// A local struct's bytes written through a pointer to another type: the members it overlaps
// are then unknown. `pair.lo` is first the thread's index (distinct slots); the 32-bit view
// then overwrites both halves with the thread's index again, so the slots stay distinct only
// because the second half, which is not written through the view, is read here.

struct halves {
    unsigned short lo, hi;
    unsigned int tag;
};

__global__ void byte_view(unsigned int *out) {
    __shared__ unsigned int slot[128];
    halves pair;
    pair.lo = threadIdx.x;
    pair.tag = threadIdx.x;
    *reinterpret_cast<unsigned int *>(&pair) = 0u;
    slot[pair.tag] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = slot[127 - threadIdx.x];
}
