//--blockDim=64 --gridDim=2
// Fields and locals whose type is an anonymous struct or union (Clang prints them by location,
// `Params::(unnamed struct at f.cu:8:5)`): laid out like named ones. The pointer in the
// anonymous struct is the kernel's output array; every block writes the same 64 elements,
// and a stride of 0 makes the threads of one block write one element.

struct Params {
    struct {
        float *data;
        int stride;
    } out;
    union {
        int count;
        float scale;
    } extra;
};

__global__ void anonymous_members(Params p)
{
    __shared__ float s[64];
    struct {
        int lane, mirror;
    } at;
    at.lane = threadIdx.x;
    at.mirror = 63 - at.lane;
    s[at.lane] = p.extra.scale;
    __syncthreads();
    p.out.data[at.lane * p.out.stride] = s[at.mirror];
}
