//--blockDim=64 --gridDim=2
// 1-D convolution with a radius-3 filter: each block stages its segment plus a halo
// on both sides, then every thread applies the filter from shared memory.
#define RADIUS 3
#define BLOCK 64

__global__ void conv1d_halo(const float *in, const float *weights, float *out, int n)
{
    __shared__ float window[BLOCK + 2 * RADIUS];
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;

    float centre = 0.0f;
    if (g < n) {
        centre = in[g];
    }
    window[t + RADIUS] = centre;

    if (t < RADIUS) {
        int left = g - RADIUS;
        int right = g + BLOCK;
        float lv = 0.0f;
        float rv = 0.0f;
        if (left >= 0) {
            lv = in[left];
        }
        if (right < n) {
            rv = in[right];
        }
        window[t] = lv;
        window[t + BLOCK + RADIUS] = rv;
    }
    __syncthreads();

    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        acc += weights[k + RADIUS] * window[t + RADIUS + k];
    }
    if (g < n) {
        out[g] = acc;
    }
}
