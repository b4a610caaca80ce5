//--blockDim=[8,8] --gridDim=[2,2]
// Five-point 2-D stencil: an 8x8 block loads a 10x10 tile (interior plus a one-cell
// halo on each edge, clamped at the borders) and averages each cell with its neighbours.
#define BX 8
#define BY 8

__device__ int clamp_index(int v, int hi)
{
    if (v < 0) {
        return 0;
    }
    if (v > hi) {
        return hi;
    }
    return v;
}

__global__ void stencil2d_halo(const float *in, float *out, int width, int height)
{
    __shared__ float tile[BY + 2][BX + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int gx = blockIdx.x * BX + tx;
    int gy = blockIdx.y * BY + ty;

    tile[ty + 1][tx + 1] = in[gy * width + gx];
    if (tx == 0) {
        tile[ty + 1][0] = in[gy * width + clamp_index(gx - 1, width - 1)];
    }
    if (tx == BX - 1) {
        tile[ty + 1][BX + 1] = in[gy * width + clamp_index(gx + 1, width - 1)];
    }
    if (ty == 0) {
        tile[0][tx + 1] = in[clamp_index(gy - 1, height - 1) * width + gx];
    }
    if (ty == BY - 1) {
        tile[BY + 1][tx + 1] = in[clamp_index(gy + 1, height - 1) * width + gx];
    }
    __syncthreads();

    float sum = tile[ty + 1][tx + 1] + tile[ty][tx + 1] + tile[ty + 2][tx + 1]
              + tile[ty + 1][tx] + tile[ty + 1][tx + 2];
    out[gy * width + gx] = 0.2f * sum;
}
