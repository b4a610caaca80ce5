//--blockDim=64 --gridDim=2
// A CUTLASS NamedBarrier producer/consumer whose producer signals too early: warp 0 calls
// NamedBarrier::arrive(64, 2) before it stores the row, so warp 1, released by
// NamedBarrier::sync(64, 2), may read the row before it is written. At sm_90 the calls are
// `bar.arrive 10, 64` / `bar.sync 10, 64` (CUTLASS adds its 8 reserved IDs) and the store
// races with the read. Read for sm_80, CUTLASS compiles both calls as `brkpt`: every thread
// traps at its first barrier, the kernel never completes, and that is what autosync reports.
#include <cutlass/arch/barrier.h>

using cutlass::arch::NamedBarrier;

__global__ void cutlass_named_arrive_early(const float *in, float *out)
{
    __shared__ float row[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        NamedBarrier::arrive(64, 2);
        row[lane] = in[blockIdx.x * 32 + lane] + 1.0f;
    } else {
        NamedBarrier::sync(64, 2);
        out[blockIdx.x * 32 + lane] = row[31 - lane];
    }
}
