//--blockDim=64 --gridDim=2
// The tile width comes from a configuration header found through -I as an angle include.
// Each thread reads the element at its own position in the next tile. With the configured
// TILE 32 that element belongs to a thread of the other half of the block: a race (the
// barrier is missing). With the file's fallback TILE 64 (a single tile) every thread would
// read its own element, so a front end that misses the header reports clean.
#include <ext/cfg.h>

#ifndef TILE
#define TILE 64
#endif

#define ROW 64

__global__ void angle_include(const float *in, float *out)
{
    __shared__ float row[ROW];
    int t = threadIdx.x;
    int tiles = ROW / TILE;
    int next = (t / TILE + 1) % tiles;

    row[t] = in[blockIdx.x * ROW + t];
    out[blockIdx.x * ROW + t] = row[next * TILE + t % TILE];
}
