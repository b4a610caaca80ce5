//--blockDim=64 --gridDim=1
// Every thread that finds a match raises the same flag: a write-write race in
// which all writers store the value 1. It is benign (a warning, not a defect);
// `--strict` reports it as a race.
__global__ void flag_benign(const int *in, int key, int *found)
{
    __shared__ int flag[1];
    if (threadIdx.x == 0) {
        flag[0] = 0;
    }
    __syncthreads();
    if (in[threadIdx.x] == key) {
        flag[0] = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        found[0] = flag[0];
    }
}
