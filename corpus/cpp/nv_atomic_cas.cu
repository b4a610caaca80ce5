//--blockDim=64 --gridDim=1
// nvcc's atomic built-ins (CUDA 12.8 on), as CUTLASS's sub-byte store uses them: a CAS loop
// seeded by __nv_atomic_load_n sets each thread's bit in one of two shared words, and a
// relaxed __nv_atomic_fetch_add counts the threads. Atomics do not race with atomics: clean.
__global__ void nv_atomic_cas(unsigned *flags, unsigned *out)
{
    __shared__ unsigned word[2];
    if (threadIdx.x < 2) word[threadIdx.x] = 0;
    __syncthreads();
    unsigned old = __nv_atomic_load_n(&word[threadIdx.x % 2], __NV_ATOMIC_RELAXED);
    unsigned seen;
    do {
        seen = old;
        old = atomicCAS(&word[threadIdx.x % 2], seen, seen | (1u << (threadIdx.x % 32)));
    } while (old != seen);
    __nv_atomic_fetch_add(&flags[0], 1u, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = word[0] | word[1];
}
