//--blockDim=64 --gridDim=4
// Racy twin of pass_loop_exit: the loop runs two passes more (exit at 16). In the third and
// fourth the width is 0 and -4, so thread t updates slot 3 of thread t-1 and then of thread
// t-2: those updates race with the owners' own updates and with their final reads.
__global__ void pass_loop_exit_racy(const int *in, int *out)
{
    __shared__ int lanes[64 * 4];
    int t = threadIdx.x;
    int begin = 0;
    lanes[t * 4] = in[blockIdx.x * 64 + t];
    while (true) {
        int width = min(4, 8 - begin);
        lanes[t * 4 + width - 1] += begin;
        begin += 4;
        if (begin >= 16) {
            break;
        }
    }
    out[blockIdx.x * 64 + t] = lanes[t * 4 + 3] + lanes[t * 4];
}
