//--blockDim=64 --gridDim=1
// using_namespace_type without its barrier: a thread reads its neighbour's word while the
// neighbour may not have written it yet (RAW), once the type's layout is known.
namespace tiles {
struct __align__(128) slab { int word; };
}
using namespace tiles;

__global__ void using_namespace_type_racy(float *out)
{
    extern __shared__ slab smem[];
    int *words = (int *)&smem[0];
    words[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = words[(threadIdx.x + 1) % 64];
}
