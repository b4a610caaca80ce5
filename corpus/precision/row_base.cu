//--blockDim=128 --gridDim=16
// Every block scales its own row of `in` into `out` through row pointers made once
// (`row = out + blockIdx.x * WIDTH`), each thread its own columns in several passes,
// then adds one to the elements it wrote itself. Race-free. Two accesses through
// the same row pointer touch one element exactly when their column indices agree,
// which is what the checker compares (not the byte ranges of `row + i`).
#define WIDTH 512

__global__ void row_base(float *out, const float *in)
{
    float *row = out + blockIdx.x * WIDTH;
    const float *src = in + blockIdx.x * WIDTH;
    for (int i = threadIdx.x; i < WIDTH; i += blockDim.x) {
        row[i] = src[i] * 2.0f;
    }
    for (int i = threadIdx.x; i < WIDTH; i += blockDim.x) {
        row[i] = row[i] + 1.0f;
    }
}
