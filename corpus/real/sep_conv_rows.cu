//--blockDim=[32,4] --gridDim=[4,4]
// Row pass of a separable convolution. A block filters a strip of 4 rows and
// RESULT_STEPS * 32 columns. It stages the strip with a HALO_STEPS * 32 column
// apron on either side in shared memory (clamped to the image, so no branch in
// the filter loop), waits, and then every thread filters RESULT_STEPS pixels.
// The filter taps are a kernel parameter array read through the read-only path.
#define RADIUS 8
#define ROWS 4
#define COLS 32
#define RESULT_STEPS 4
#define HALO_STEPS 1
#define STRIP (COLS * (RESULT_STEPS + 2 * HALO_STEPS))

__device__ int clamp_index(int x, int lo, int hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

__device__ float load_clamped(const float *src, int row, int col, int width, int pitch)
{
    int c = clamp_index(col, 0, width - 1);
    return src[row * pitch + c];
}

__global__ void sep_conv_rows(const float *src, float *dst, const float *taps, int width, int height, int pitch)
{
    // Rows are at least as long as the image is wide.
    __requires(pitch >= width);
    __shared__ float strip[ROWS][STRIP];
    __shared__ float w[2 * RADIUS + 1];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * ROWS + ty;
    // First column of the block's output, and of its apron.
    int out_col0 = blockIdx.x * RESULT_STEPS * COLS;
    int apron_col0 = out_col0 - HALO_STEPS * COLS;
    int r = row < height ? row : height - 1;

    // The taps, once per block.
    if (ty == 0 && tx <= 2 * RADIUS) {
        w[tx] = taps[tx];
    }

    // Left apron.
    for (int s = 0; s < HALO_STEPS; s++) {
        int c = apron_col0 + s * COLS + tx;
        strip[ty][s * COLS + tx] = load_clamped(src, r, c, width, pitch);
    }
    // Main part.
    for (int s = HALO_STEPS; s < HALO_STEPS + RESULT_STEPS; s++) {
        int c = apron_col0 + s * COLS + tx;
        strip[ty][s * COLS + tx] = load_clamped(src, r, c, width, pitch);
    }
    // Right apron.
    for (int s = HALO_STEPS + RESULT_STEPS; s < 2 * HALO_STEPS + RESULT_STEPS; s++) {
        int c = apron_col0 + s * COLS + tx;
        strip[ty][s * COLS + tx] = load_clamped(src, r, c, width, pitch);
    }
    __syncthreads();

    // Filter: every output pixel reads 2 * RADIUS + 1 staged neighbours.
    for (int s = HALO_STEPS; s < HALO_STEPS + RESULT_STEPS; s++) {
        int center = s * COLS + tx;
        float acc = 0.0f;
        for (int j = -RADIUS; j <= RADIUS; j++) {
            acc += w[RADIUS - j] * strip[ty][center + j];
        }
        int c = apron_col0 + s * COLS + tx;
        if (row < height && c < width) {
            dst[row * pitch + c] = acc;
        }
    }
}
