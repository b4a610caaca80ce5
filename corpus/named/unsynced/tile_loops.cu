//--blockDim=64 --gridDim=1
// The producer warp fills a 4x32 tile with a loop, the consumer warp reads it back
// column-reversed with another loop; single shot, no barriers.
#define ROWS 4

__global__ void tile_loops(const float *in, float *out)
{
    __shared__ float tile[ROWS * 32];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (warp == 0) {
        for (int r = 0; r < ROWS; ++r)
            tile[r * 32 + lane] = in[r * 32 + lane];
    } else {
        float acc = 0.0f;
        for (int r = 0; r < ROWS; ++r)
            acc += tile[r * 32 + (31 - lane)];
        out[lane] = acc;
    }
}
