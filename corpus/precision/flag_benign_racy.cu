//--blockDim=64 --gridDim=1
// Every thread that finds a match records its own index: a write-write race
// with different values (which index survives is up to the hardware), not a
// benign one.
__global__ void flag_benign_racy(const int *in, int key, int *found)
{
    __shared__ int flag[1];
    if (threadIdx.x == 0) {
        flag[0] = 0;
    }
    __syncthreads();
    if (in[threadIdx.x] == key) {
        flag[0] = threadIdx.x;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        found[0] = flag[0];
    }
}
