//--blockDim=64 --gridDim=2
// Iterated smoothing with ping-pong buffers: `cur` and `next` point at two shared rows and
// are swapped after every step, the usual way to avoid copying. Each step reads neighbours
// from `cur`, writes `next`, and one barrier per step orders the writes before the next
// step's reads; writes into the row read two steps earlier are ordered by the previous
// step's barrier. Race-free.

__global__ void ping_pong(const float *in, float *out, int steps)
{
    __shared__ float a[64];
    __shared__ float b[64];
    int t = threadIdx.x;
    float *cur = a;
    float *next = b;

    cur[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        next[t] = 0.25f * cur[(t + 63) % 64] + 0.5f * cur[t] + 0.25f * cur[(t + 1) % 64];
        __syncthreads();
        float *tmp = cur;
        cur = next;
        next = tmp;
    }
    out[blockIdx.x * 64 + t] = cur[t];
}
