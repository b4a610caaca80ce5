//--blockDim=64 --gridDim=1
// A quantized-block record as inference libraries declare it: a typedef'd anonymous struct
// whose first member is an anonymous union of a two-field struct and one packed word. Its
// layout (the union's size, the nested struct inside it) comes from the declarations: each
// thread fills its own block through the packed word, and after the barrier reads its
// neighbour's through the struct view.

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

__global__ void anon_union_block(const unsigned int *in, unsigned int *out) {
    __shared__ quant_block blocks[64];
    const unsigned int t = threadIdx.x;
    blocks[t].dm = in[t];
    blocks[t].qs[t % 16] = (unsigned char)t;
    __syncthreads();
    const unsigned int n = (t + 1) % 64;
    out[t] = blocks[n].data.d + blocks[n].data.m + blocks[n].qs[t % 16];
}
