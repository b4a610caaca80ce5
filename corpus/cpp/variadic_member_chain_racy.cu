// A variadic record that holds its tail as a member (`chain<Rest...> rest`), passed by value
// in the kernel's parameter struct: each specialization is a record of its own, down to the
// empty `chain<>`. Racy twin: the shifted read of the tile has no barrier before it.
template <typename... Tags> struct chain {
    __device__ int total() const { return 0; }
};

template <typename Tag, typename... Rest> struct chain<Tag, Rest...> {
    int offset;
    chain<Rest...> rest;
    __device__ int total() const { return offset + rest.total(); }
};

struct rows {};
struct cols {};

struct shift_args {
    float *out;
    chain<rows, cols> shift;
};

__global__ void variadic_member_chain_racy(const __grid_constant__ shift_args a) {
    __shared__ float tile[256];
    const int t = threadIdx.x;
    tile[t] = a.out[blockIdx.x * 256 + t];
    const int from = (t + a.shift.total()) & 255;
    a.out[blockIdx.x * 256 + t] = tile[from];
}

void shift_tiles(shift_args a, int blocks) {
    variadic_member_chain_racy<<<blocks, 256>>>(a);
}
