//--blockDim=64 --gridDim=2
// Defect (deadlock): cutlass_named_pc without the producer's NamedBarrier::arrive(64, 1). Warp 1
// executes `bar.sync 9, 64` and waits for 64 threads; only its own 32 ever arrive. Warp 0
// stores the row and exits, and an exited warp releases only barriers that wait on all threads
// of the CTA (no thread count), not a named barrier with an explicit count of 64: warp 1 hangs,
// the block never finishes, and the read of row[] never runs (so there is no race to report).
#include <cutlass/arch/barrier.h>

using cutlass::arch::NamedBarrier;

__global__ void cutlass_named_missing_arrive(const float *in, float *out)
{
    __shared__ float row[32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    const float *src = in + blockIdx.x * 32;
    if (warp == 0) {
        row[lane] = src[lane] * 0.5f;
    } else {
        NamedBarrier::sync(64, 1);
        out[blockIdx.x * 32 + lane] = row[31 - lane];
    }
}
