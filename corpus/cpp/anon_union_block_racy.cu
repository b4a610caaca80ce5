//--blockDim=64 --gridDim=1
// Racy twin of anon_union_block: without the barrier, a thread reads its neighbour's block
// through the struct view (bytes 0..3 of the union) while the neighbour writes them through
// the packed word: the union's members overlap, so the read races with that write.

typedef struct {
    union {
        struct {
            unsigned short d;
            unsigned short m;
        } data;
        unsigned int dm;
    };
    unsigned char qs[16];
} quant_block;

__global__ void anon_union_block_racy(const unsigned int *in, unsigned int *out) {
    __shared__ quant_block blocks[64];
    const unsigned int t = threadIdx.x;
    blocks[t].dm = in[t];
    blocks[t].qs[t % 16] = (unsigned char)t;
    const unsigned int n = (t + 1) % 64;
    out[t] = blocks[n].data.d + blocks[n].data.m + blocks[n].qs[t % 16];
}
