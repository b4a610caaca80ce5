//--blockDim=64 --gridDim=2
// Inclusive scan of one 64-element segment per block (Hillis-Steele), alternating
// between two shared buffers so a step never overwrites values it still reads.
#define SEG 64

__global__ void scan_hillis_steele(const float *in, float *out)
{
    __shared__ float buf[2][SEG];
    int t = threadIdx.x;
    int base = blockIdx.x * SEG;
    int src = 0;
    buf[0][t] = in[base + t];
    __syncthreads();

    for (int offset = 1; offset < SEG; offset <<= 1) {
        int dst = 1 - src;
        float v = buf[src][t];
        if (t >= offset) {
            v += buf[src][t - offset];
        }
        buf[dst][t] = v;
        __syncthreads();
        src = dst;
    }
    out[base + t] = buf[src][t];
}
