// nvcc_asm_escape without its barrier: each thread reads its neighbour's slot while the
// neighbour may not have written it yet (the header is read through the same `%%` copy).
#include "include/cluster_regs.h"

__global__ void nvcc_asm_escape_racy(unsigned *out) {
    __shared__ unsigned tag[128];
    const unsigned t = threadIdx.x;
    tag[t] = block_rank_in_cluster() * 1024u + cluster_x() + t;
    out[blockIdx.x * 128 + t] = tag[(t + 1) % 128];
}

void tag_slots(unsigned *out, int blocks) {
    nvcc_asm_escape_racy<<<blocks, 128>>>(out);
}
