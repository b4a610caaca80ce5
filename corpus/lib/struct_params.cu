//--blockDim=64 --gridDim=4
// Kernel parameters passed as structs of pointers: each pointer field is its own buffer (no
// aliasing between fields, as for pointer parameters). Every block owns a 64-element
// segment of each buffer. src -> dst is race-free; the scratch buffer is written and then
// read at the neighbour's position without a barrier: a race on global memory inside the
// block (one barrier fixes it).

struct Buffers {
    const float *src;
    float *dst;
    float *scratch;
};

struct Shape {
    int segment;
    float gain;
};

__global__ void struct_params(Buffers b, Shape s)
{
    int t = threadIdx.x;
    int base = blockIdx.x * 64;

    b.scratch[base + t] = b.src[base + t] * s.gain;
    b.dst[base + t] = b.src[base + t];
    b.dst[base + t] += b.scratch[base + (t + 1) % 64];
}
