//--blockDim=96 --gridDim=1
// Defect (race): a warp-specialized copy loop in the CudaDMA style. Warp 0 fills the tile
// through a device function that waits on the "empty" barrier 3, stores, and arrives on the
// "full" barrier 2; the compute warps read one element before they sync on barrier 2, so
// step k's stores and step k's early read are unordered (read-after-write). Fixable by
// insertion: an arrive on a fresh ID after the copy call and a sync on it (96 threads) before
// the early read. The channels that would leave the copy loop deadlock (the compute warps
// would wait before their first arrive on barrier 3).
__device__ void copy_tile(float *dst, const float *src, int lane, int mode)
{
    asm volatile("bar.sync 3, 96;" ::: "memory");
    switch (mode) {
    case 0:
        dst[lane] = src[lane];
        dst[lane + 32] = src[lane + 32];
        break;
    default:
        dst[lane] = src[lane];
        break;
    }
    asm volatile("bar.arrive 2, 96;" ::: "memory");
}

__global__ void early_read_dma(const float *in, float *out, int iters)
{
    __shared__ float tile[64];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int it = 0; it < iters; ++it) {
            copy_tile(tile, in + it * 64, lane, 0);
        }
    } else {
        int c = threadIdx.x - 32;
        asm volatile("bar.arrive 3, 96;" ::: "memory");
        for (int it = 0; it < iters; ++it) {
            float acc = tile[c];
            asm volatile("bar.sync 2, 96;" ::: "memory");
            acc += tile[(c + 1) % 64];
            out[it * 64 + c] = acc;
            if (it + 1 < iters) {
                asm volatile("bar.arrive 3, 96;" ::: "memory");
            }
        }
    }
}
