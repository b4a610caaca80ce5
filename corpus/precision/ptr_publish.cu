//--blockDim=64 --gridDim=1
// Every thread publishes the same tile pointer in a shared variable and then checks that it
// is set. All stores write the same address, and each thread's load follows its own store,
// so the load sees that address whichever store it sees: benign races (warnings; races
// under --strict).
__global__ void ptr_publish(int *ok)
{
    __shared__ int tile[64];
    __shared__ int *cur;
    cur = tile;
    ok[threadIdx.x] = cur != 0;
}
