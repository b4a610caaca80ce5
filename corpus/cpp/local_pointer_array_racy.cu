//--blockDim=128 --gridDim=4
// local_pointer_array with the second pointer aimed at the next thread's column: a thread
// bumps a counter its neighbour zeroes (RAW with lines 10-13) and bumps through its first
// pointer (WAR with line 17) in the same barrier interval. `fix` puts one barrier before the
// second bump (line 18), which orders all five.
__global__ void local_pointer_array_racy(const unsigned int *keys, int *out) {
  __shared__ int counts[4][128];
  unsigned int t = threadIdx.x;
  unsigned int g = blockIdx.x * 128 + t;
  counts[0][t] = 0;
  counts[1][t] = 0;
  counts[2][t] = 0;
  counts[3][t] = 0;
  int *slot[2];
  slot[0] = &counts[keys[2 * g] & 3u][t];
  slot[1] = &counts[keys[2 * g + 1] & 3u][(t + 1) % 128];
  *slot[0] += 1;
  *slot[1] += 1;
  __syncthreads();
  out[g] = counts[t % 4][(t + 1) % 128];
}
