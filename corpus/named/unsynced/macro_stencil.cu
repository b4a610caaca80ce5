//--blockDim=128 --gridDim=1
// Warps 0-1 stage a tile of 64 values (plus a zero border) in shared memory;
// warps 2-3 read it as a three-point stencil, so each consumer thread reads
// values that other warps wrote. There is no barrier yet. The file wraps the
// named barriers in its own macros, BAR_SYNC(count, id) and BAR_ARRIVE(id,
// count) (note the different argument orders); a fix should call them.
#define BAR_SYNC(nthreads, id) asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(nthreads) : "memory")
#define BAR_ARRIVE(id, nthreads) \
    do { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(nthreads) : "memory"); } while (0)

__global__ void macro_stencil(const float *in, float *out)
{
    __shared__ float tile[66];
    int t = threadIdx.x;
    if (t < 64) {
        tile[t + 1] = in[t];
        if (t == 0) {
            tile[0] = 0.0f;
            tile[65] = 0.0f;
        }
    } else {
        int i = t - 64;
        out[i] = 0.25f * tile[i] + 0.5f * tile[i + 1] + 0.25f * tile[i + 2];
    }
}
