//--blockDim=64 --gridDim=1
// An Ampere double buffer: each thread copies 16 bytes of the next tile with cp.async and
// commits them as a group, waits until at most one group (the one just issued) is pending, and
// a __syncthreads makes every thread's landed copy visible before the tile is read across
// threads; the second __syncthreads keeps the next copy off a buffer still being read.
#define TILE 256

__device__ __forceinline__ unsigned shared_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void copy16(float *dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(shared_addr(dst)), "l"(src) : "memory");
}

__device__ void commit_copies() { asm volatile("cp.async.commit_group;" ::: "memory"); }

__device__ void wait_all_but_newest() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }

__global__ void cp_async_double(const float *in, float *out, int iters)
{
    __shared__ __align__(16) float buf[2][TILE];
    int t = threadIdx.x;
    copy16(&buf[0][t * 4], in + t * 4);
    commit_copies();
    for (int k = 0; k < iters; ++k) {
        if (k + 1 < iters)
            copy16(&buf[(k + 1) % 2][t * 4], in + (k + 1) * TILE + t * 4);
        commit_copies();
        wait_all_but_newest();
        __syncthreads();
        float acc = 0;
        for (int i = 0; i < TILE; i += 64)
            acc += buf[k % 2][i + t];
        out[k * 64 + t] = acc;
        __syncthreads();
    }
}
