//--blockDim=128 --gridDim=1
// Racy twin of byte_view: `pair.lo` starts as the thread's index, but the 32-bit view then
// overwrites it (with 0 in every thread): all threads store to slot[0]. Had the view not made
// `pair.lo` unknown, the stale index would have hidden the race.

struct halves {
    unsigned short lo, hi;
    unsigned int tag;
};

__global__ void byte_view_racy(unsigned int *out) {
    __shared__ unsigned int slot[128];
    halves pair;
    pair.lo = threadIdx.x;
    pair.tag = threadIdx.x;
    *reinterpret_cast<unsigned int *>(&pair) = 0u;
    slot[pair.lo] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = slot[127 - threadIdx.x];
}
