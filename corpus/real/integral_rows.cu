//--blockDim=256 --gridDim=[1,64]
// Row pass of an integral image and of the integral of squares (for local
// variance): every block scans one row of WIDTH pixels. Each thread owns
// PER_THREAD consecutive pixels: it sums them serially, the warps scan the
// per-thread sums with shuffles, the last lane of every warp publishes its warp
// total in shared memory, warp 0 scans those totals, and every thread adds the
// offset of its warp and its own prefix back in. Both scans share the barriers.
#define WIDTH 1024
#define PER_THREAD 4
#define THREADS 256
#define WARPS (THREADS / 32)
#define FULL_MASK 0xffffffffu

__device__ unsigned int warp_inclusive_scan(unsigned int v, int lane)
{
    // Kogge-Stone inside one warp; shuffles exchange registers, not memory.
    for (int d = 1; d < 32; d <<= 1) {
        unsigned int up = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) {
            v += up;
        }
    }
    return v;
}

__global__ void integral_rows(const unsigned char *image, unsigned int *sums, unsigned int *squares, int pitch)
{
    __shared__ unsigned int warp_totals[WARPS];
    __shared__ unsigned int warp_offsets[WARPS];
    __shared__ unsigned int warp_sq_totals[WARPS];
    __shared__ unsigned int warp_sq_offsets[WARPS];
    __shared__ unsigned int row_tail[THREADS * PER_THREAD];
    __shared__ unsigned int row_sq_tail[THREADS * PER_THREAD];

    int tid = threadIdx.x;
    int lane = tid & 31;
    int warp = tid >> 5;
    int row = blockIdx.y;
    const unsigned char *src = image + row * pitch;

    // Serial sums of the thread's own pixels (kept in registers).
    unsigned int p0 = src[tid * PER_THREAD + 0];
    unsigned int p1 = src[tid * PER_THREAD + 1];
    unsigned int p2 = src[tid * PER_THREAD + 2];
    unsigned int p3 = src[tid * PER_THREAD + 3];
    unsigned int s0 = p0;
    unsigned int s1 = s0 + p1;
    unsigned int s2 = s1 + p2;
    unsigned int s3 = s2 + p3;
    unsigned int q0 = p0 * p0;
    unsigned int q1 = q0 + p1 * p1;
    unsigned int q2 = q1 + p2 * p2;
    unsigned int q3 = q2 + p3 * p3;

    // Inclusive scans of the thread totals within each warp.
    unsigned int incl = warp_inclusive_scan(s3, lane);
    unsigned int excl = incl - s3;
    unsigned int incl_sq = warp_inclusive_scan(q3, lane);
    unsigned int excl_sq = incl_sq - q3;
    if (lane == 31) {
        warp_totals[warp] = incl;
        warp_sq_totals[warp] = incl_sq;
    }
    __syncthreads();

    // Warp 0 turns the warp totals into exclusive offsets.
    if (warp == 0) {
        unsigned int t = 0;
        unsigned int tq = 0;
        if (lane < WARPS) {
            t = warp_totals[lane];
            tq = warp_sq_totals[lane];
        }
        unsigned int scanned = warp_inclusive_scan(t, lane);
        unsigned int scanned_sq = warp_inclusive_scan(tq, lane);
        if (lane < WARPS) {
            warp_offsets[lane] = scanned - t;
            warp_sq_offsets[lane] = scanned_sq - tq;
        }
    }
    __syncthreads();

    unsigned int base = warp_offsets[warp] + excl;
    unsigned int base_sq = warp_sq_offsets[warp] + excl_sq;

    // Stage the row in shared memory so that the stores below are coalesced.
    row_tail[tid * PER_THREAD + 0] = base + s0;
    row_tail[tid * PER_THREAD + 1] = base + s1;
    row_tail[tid * PER_THREAD + 2] = base + s2;
    row_tail[tid * PER_THREAD + 3] = base + s3;
    row_sq_tail[tid * PER_THREAD + 0] = base_sq + q0;
    row_sq_tail[tid * PER_THREAD + 1] = base_sq + q1;
    row_sq_tail[tid * PER_THREAD + 2] = base_sq + q2;
    row_sq_tail[tid * PER_THREAD + 3] = base_sq + q3;
    __syncthreads();

    // Coalesced stores: consecutive threads write consecutive words.
    unsigned int *dst = sums + row * WIDTH;
    unsigned int *dst_sq = squares + row * WIDTH;
    for (int i = tid; i < WIDTH; i += THREADS) {
        dst[i] = row_tail[i];
        dst_sq[i] = row_sq_tail[i];
    }
}
