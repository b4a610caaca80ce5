//--blockDim=64 --gridDim=4
// A radix-style pass loop: `while (true)` with the pass counter advanced in the body and the
// exit test at its end. Each pass writes the thread's own slot chosen by the pass width,
// min(4, 8 - begin): 4 in both passes that run. Only the exit test bounds begin (below 8 at
// every head but the first); without it the width could be 0 or negative and the slot a
// neighbour's. Race-free: each thread touches only its own four slots.
__global__ void pass_loop_exit(const int *in, int *out)
{
    __shared__ int lanes[64 * 4];
    int t = threadIdx.x;
    int begin = 0;
    lanes[t * 4] = in[blockIdx.x * 64 + t];
    while (true) {
        int width = min(4, 8 - begin);
        lanes[t * 4 + width - 1] += begin;
        begin += 4;
        if (begin >= 8) {
            break;
        }
    }
    out[blockIdx.x * 64 + t] = lanes[t * 4 + 3] + lanes[t * 4];
}
