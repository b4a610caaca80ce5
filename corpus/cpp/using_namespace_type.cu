//--blockDim=64 --gridDim=1
// A type named through a using-directive (ThunderKittens' `extern __shared__
// alignment_dummy __shm[];` after `using namespace kittens;`): Clang prints it unqualified,
// and autosync finds the unit's one declaration of that name for its layout. Each thread
// writes its word of the dynamic shared memory, the block syncs, and reads its neighbour's.
namespace tiles {
struct __align__(128) slab { int word; };
}
using namespace tiles;

__global__ void using_namespace_type(float *out)
{
    extern __shared__ slab smem[];
    int *words = (int *)&smem[0];
    words[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = words[(threadIdx.x + 1) % 64];
}
