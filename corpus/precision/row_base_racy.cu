//--blockDim=128 --gridDim=16
// Racy twin of row_base: two row pointers one element apart. Thread t writes
// next[t], the element row[t + 1] that thread t + 1 writes. The indices of the
// two stores are both threadIdx.x; only their bases differ, so comparing indices
// alone (as for two accesses through one base) would miss the race.
#define WIDTH 512

__global__ void row_base_racy(float *out)
{
    float *row = out + blockIdx.x * WIDTH;
    float *next = row + 1;
    row[threadIdx.x] = 1.0f;
    next[threadIdx.x] = 2.0f;
}
