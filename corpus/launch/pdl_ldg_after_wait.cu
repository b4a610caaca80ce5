//--blockDim=128 --gridDim=8
// pdl_wait reading the previous grid's output through the read-only path: `__ldg` after the
// wait (and an `ld.global.nc` in inline PTX). A read-only-path load promises the data does not
// change during the kernel, so the compiler may hoist it above the wait: warning[pdl-nc-load]
// for each, naming the load and the wait. No race: the tile is ordered by __syncthreads.
__device__ float load_nc(const float *p)
{
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void pdl_ldg_after_wait(const float *prev, const float *bias, float *out, int n)
{
    __shared__ float tile[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    float b = __ldg(&bias[threadIdx.x]);
    asm volatile("griddepcontrol.wait;" ::: "memory");
    tile[threadIdx.x] = i < n ? __ldg(&prev[i]) + b : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = tile[127 - threadIdx.x] + load_nc(&prev[i]);
}
