//--blockDim=64 --gridDim=1
// Racy twin of ptr_publish: odd and even threads publish different elements of the tile, so
// the stores differ and a thread's load may see the other kind's pointer.
__global__ void ptr_publish_racy(int *ok)
{
    __shared__ int tile[64];
    __shared__ int *cur;
    cur = tile + threadIdx.x % 2;
    ok[threadIdx.x] = cur != 0;
}
