//--blockDim=64 --gridDim=1
// nv_atomic_cas's racy twin: thread 0 writes the word with a plain store while every thread
// reads it with an acquire __nv_atomic_load_n and no barrier between: an atomic and a plain
// access of two threads, unordered.
__global__ void nv_atomic_racy(unsigned *out)
{
    __shared__ unsigned word;
    if (threadIdx.x == 0) word = 7;
    unsigned v = __nv_atomic_load_n(&word, __NV_ATOMIC_ACQUIRE);
    out[threadIdx.x] = v;
}
