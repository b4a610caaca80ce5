//--blockDim=128 --gridDim=4
// Per-thread counters in shared memory, one column per thread and one row per digit: each
// thread zeroes its column, keeps a pointer to the counter of each of its two keys' digits in
// a local array of pointers (as a block radix rank does), and bumps the counters through it.
// Every pointer stays in the thread's own column; totals are read across threads only after
// the barrier. Race-free.
__global__ void local_pointer_array(const unsigned int *keys, int *out) {
  __shared__ int counts[4][128];
  unsigned int t = threadIdx.x;
  unsigned int g = blockIdx.x * 128 + t;
  counts[0][t] = 0;
  counts[1][t] = 0;
  counts[2][t] = 0;
  counts[3][t] = 0;
  int *slot[2];
  slot[0] = &counts[keys[2 * g] & 3u][t];
  slot[1] = &counts[keys[2 * g + 1] & 3u][t];
  *slot[0] += 1;
  *slot[1] += 1;
  __syncthreads();
  out[g] = counts[t % 4][(t + 1) % 128];
}
