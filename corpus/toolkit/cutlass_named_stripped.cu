//--blockDim=64 --gridDim=2
// cutlass_named_pc stripped of both NamedBarrier calls: warp 0's store to row[] and warp 1's
// reversed read race (read-after-write across warp roles; a __syncthreads() would sit in
// divergent code). The file includes CUTLASS's barrier header and names NamedBarrier, so the
// fix should be a channel written as CUTLASS calls: NamedBarrier::arrive(64, ID) after the
// store in warp 0, NamedBarrier::sync(64, ID) before the read in warp 1, with a user ID
// 0-7 (hardware ID + 8, 8-15).
#include <cutlass/arch/barrier.h>

using cutlass::arch::NamedBarrier;

__global__ void cutlass_named_stripped(const float *in, float *out)
{
    __shared__ float row[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    const float *src = in + blockIdx.x * 32;
    if (warp == 0) {
        row[lane] = src[lane] * 0.5f;
    } else {
        out[blockIdx.x * 32 + lane] = row[31 - lane];
    }
}
