//--blockDim=64 --gridDim=2
// Producer/consumer through CUTLASS's own cutlass::arch::NamedBarrier (<cutlass/arch/barrier.h>,
// CUTLASS 4.2). Warp 0 scales a row into a shared buffer and calls NamedBarrier::arrive(64, 1);
// warp 1 calls NamedBarrier::sync(64, 1) and reads the row reversed. CUTLASS offsets user IDs
// by ReservedNamedBarrierCount (8), so the hardware barrier is 9: `bar.arrive 9, 64` and
// `bar.sync 9, 64`. The asm exists only for __CUDA_ARCH__ >= 900 (sm_90); below that the calls
// compile to `brkpt`. Race-free.
#include <cutlass/arch/barrier.h>

using cutlass::arch::NamedBarrier;

__global__ void cutlass_named_pc(const float *in, float *out)
{
    __shared__ float row[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    const float *src = in + blockIdx.x * 32;
    if (warp == 0) {
        row[lane] = src[lane] * 0.5f;
        NamedBarrier::arrive(64, 1);
    } else {
        NamedBarrier::sync(64, 1);
        out[blockIdx.x * 32 + lane] = row[31 - lane];
    }
}
