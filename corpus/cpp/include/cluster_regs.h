// Cluster special registers read the way nvcc accepts them: a lone `%` before a register
// name, which Clang refuses in its own dialect ("invalid % escape") and autosync reads
// through a copy that says `%%`.
#pragma once

__device__ static inline unsigned block_rank_in_cluster() {
    unsigned r;
    asm volatile("mov.u32 %0, %cluster_ctarank;\n" : "=r"(r));
    return r;
}

__device__ static inline unsigned cluster_x() {
    unsigned x;
    asm volatile("mov.u32 %0, %clusterid.x;\n" : "=r"(x));
    return x;
}
