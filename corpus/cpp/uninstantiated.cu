//--blockDim=64 --gridDim=4
// A two-pass 1-D stencil written as a kernel template that the file never instantiates
// (the host code lives elsewhere): autosync needs the template arguments, given with
// --define RADIUS=2 --define kClamp=false (manifest `template_values`). The second pass
// overwrites the tile in place: the barrier after the write is there, the one before it is
// missing, so the first pass's neighbour reads race with the in-place writes (write after
// read). With RADIUS 0 there would be no neighbours and no race.

template <int RADIUS, bool kClamp>
__global__ void uninstantiated(const float *in, float *out)
{
    const int kBlock = 64;
    __shared__ float tile[kBlock + 2 * RADIUS];
    int t = threadIdx.x;
    int g = blockIdx.x * kBlock + t;

    tile[RADIUS + t] = in[g];
    if (t < RADIUS) {
        tile[t] = 0.0f;
        tile[RADIUS + kBlock + t] = 0.0f;
    }
    __syncthreads();

    float sum = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
        sum += tile[RADIUS + t + d];
    }
    if (kClamp) {
        sum = fminf(sum, 1.0f);
    }
    tile[RADIUS + t] = sum;
    __syncthreads();

    float second = 0.0f;
    for (int d = -RADIUS; d <= RADIUS; ++d) {
        second += tile[RADIUS + t + d];
    }
    out[g] = second;
}
