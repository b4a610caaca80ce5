// A header written for nvcc's asm dialect (`%cluster_ctarank` with one `%`): the kernel
// tags each slot with its block's place in the cluster, then reads its neighbour's slot
// after a barrier.
#include "include/cluster_regs.h"

__global__ void nvcc_asm_escape(unsigned *out) {
    __shared__ unsigned tag[128];
    const unsigned t = threadIdx.x;
    tag[t] = block_rank_in_cluster() * 1024u + cluster_x() + t;
    __syncthreads();
    out[blockIdx.x * 128 + t] = tag[(t + 1) % 128];
}

void tag_slots(unsigned *out, int blocks) {
    nvcc_asm_escape<<<blocks, 128>>>(out);
}
