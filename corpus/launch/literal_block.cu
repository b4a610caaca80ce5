// Reverses each block's slice through a shared tile. Correct only for a 1-D block of 256
// threads: with blockDim.y > 1, threads of different rows share threadIdx.x and write the same
// tile element. No launch line: the block comes from the host code's launch below.
__global__ void reverse_literal(const float *in, float *out) {
    __shared__ float tile[256];
    unsigned i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = tile[255 - threadIdx.x];
}

void launch_reverse_literal(const float *in, float *out, int blocks) {
    reverse_literal<<<blocks, 256>>>(in, out);
}
