// Twin of runtime_block.cu whose launch leaves blockDim.y to the caller: the rows of a block
// sum different input rows but share `t`, so they write the same `part` element (in one
// statement: no barrier fixes it).
__global__ void row_sum_2d(const float *in, float *out, int cols, int threads) {
    extern __shared__ float part[];
    int t = threadIdx.x;
    if (t >= threads) {
        return;
    }
    long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    float s = 0.0f;
    for (int c = t; c < cols; c += threads) {
        s += in[row * cols + c];
    }
    part[t] = s;
    __syncthreads();
    if (t == 0 && threadIdx.y == 0) {
        float total = 0.0f;
        for (int i = 0; i < threads; ++i) {
            total += part[i];
        }
        out[blockIdx.x] = total;
    }
}

void launch_row_sum_2d(const float *in, float *out, int rows, int cols, int threads, int height) {
    row_sum_2d<<<rows / height, dim3(threads, height, 1), threads * sizeof(float)>>>(in, out, cols, threads);
}
