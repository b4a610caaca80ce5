//--blockDim=64 --gridDim=2
// memcpy into shared memory: thread 0 copies the block's header record into a __shared__
// struct, and every thread copies its own element of the row. The reads of the header
// fields and of the neighbour's element follow without a barrier: both copies race with
// the reads (one barrier after the copies fixes both).
#include <string.h>

struct RowHeader {
    int length;
    int flags;
    float scale;
    float bias;
};

__global__ void memcpy_shared(const RowHeader *headers, const float *in, float *out)
{
    __shared__ RowHeader hdr;
    __shared__ float row[64];
    int t = threadIdx.x;
    int g = blockIdx.x * 64 + t;

    if (t == 0) {
        memcpy(&hdr, &headers[blockIdx.x], sizeof(RowHeader));
    }
    memcpy(&row[t], &in[g], sizeof(float));

    out[g] = row[(t + 1) % 64] * hdr.scale + hdr.bias;
}
