// Helpers shared by the kernels of this directory that include "common.h".
#ifndef AUTOSYNC_CORPUS_COMMON_H
#define AUTOSYNC_CORPUS_COMMON_H

#define BLOCK_SIZE 64
#define WARP_WIDTH 32
#define LANE_OF(t) ((t) % WARP_WIDTH)
#define WARP_OF(t) ((t) / WARP_WIDTH)

__device__ inline float squared(float x)
{
    return x * x;
}

#endif
