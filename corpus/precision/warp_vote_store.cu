// Per-warp counts: `__reduce_add_sync` and `__ballot_sync` with the full mask hand every
// lane of the warp the same result, so all lanes storing it into their warp's slot is a
// benign write-write race (one value), a warning rather than an error.
__global__ void warp_vote_store(const int *flags, int *counts) {
    __shared__ int per_warp[8];
    const int tid = threadIdx.x;
    const int f = flags[blockIdx.x * blockDim.x + tid];
    const int total = __reduce_add_sync(0xffffffff, f);
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
    warp_vote_store<<<nblocks, 256>>>(flags, counts);
}
