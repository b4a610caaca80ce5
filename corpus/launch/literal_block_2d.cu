// Twin of literal_block.cu launched with a 2-D block of 256x2 threads: the two rows of a block
// share threadIdx.x and write the same tile element (and read each other's writes).
// No launch line: the block comes from the host code.
__global__ void reverse_literal_2d(const float *in, float *out) {
    __shared__ float tile[256];
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[255 - threadIdx.x];
}

void launch_reverse_literal_2d(const float *in, float *out, int blocks) {
    reverse_literal_2d<<<blocks, dim3(256, 2)>>>(in, out);
}
