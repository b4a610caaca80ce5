//--blockDim=128 --gridDim=4
// Warp-specialized tile loop: warps 0-1 load a 64-float tile per iteration and
// signal "full" on barrier 1; warps 2-3 wait on it and scale the tile into the
// output. There is no "empty" barrier: the producers' next arrival on barrier 1
// can join the generation the consumers have not synced on yet (unsafe
// recycling), and their next tile overwrites data still being read. `fix` adds
// the back-pressure pair (consumers arrive on a second ID after their reads,
// producers sync on it after their arrival) and leaves barrier 1 as written.
#define TILE 64

__global__ void recycling_tiles(const float *in, float *out, int tiles)
{
    __shared__ float tile[TILE];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int base = blockIdx.x * tiles * TILE;
    if (warp < 2) {
        for (int t = 0; t < tiles; ++t) {
            tile[warp * 32 + lane] = in[base + t * TILE + warp * 32 + lane];
            asm volatile("bar.arrive 1, 128;" ::: "memory");
        }
    } else {
        for (int t = 0; t < tiles; ++t) {
            asm volatile("bar.sync 1, 128;" ::: "memory");
            int c = (warp - 2) * 32 + lane;
            out[base + t * TILE + c] = 2.0f * tile[c] + tile[TILE - 1 - c];
        }
    }
}
