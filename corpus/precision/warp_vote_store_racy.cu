// Racy twin: the reduction names only the warp's low 16 lanes, so the high half of the
// warp gets no defined sum and the warp's lanes need not agree: a real same-statement
// race on the slot.
__global__ void warp_vote_store_racy(const int *flags, int *counts) {
    __shared__ int per_warp[8];
    const int tid = threadIdx.x;
    const int f = flags[blockIdx.x * blockDim.x + tid];
    const int total = __reduce_add_sync(0x0000ffff, f);
    const unsigned set = __ballot_sync(0xffffffff, f != 0);
    per_warp[tid / 32] = total + (int)(set >> 16);
    __syncthreads();
    if (tid == 0) {
        int sum = 0;
        for (int w = 0; w < 8; ++w) {
            sum += per_warp[w];
        }
        counts[blockIdx.x] = sum;
    }
}

void count_flags(const int *flags, int *counts, int nblocks) {
    warp_vote_store_racy<<<nblocks, 256>>>(flags, counts);
}
