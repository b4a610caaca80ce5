//--blockDim=64 --gridDim=1
// A register tile whose member array's type is written with the class template's own member
// aliases (`frag<T, layout> parts[2]` inside `tile<E, L>`, as tile libraries declare their
// sub-tiles): Clang prints the field's type with those names, read in the class's scope.
template <typename T, typename L> struct frag {
    T v[L::width];
};
struct pairs {
    static constexpr int width = 2;
};
template <typename E, typename L> struct tile {
    using T = E;
    using layout = L;
    frag<T, layout> parts[2];
};

__global__ void member_alias_template_arg(float *out) {
    __shared__ float stage[64 * 4];
    tile<float, pairs> t;
    unsigned tid = threadIdx.x;
    for (int p = 0; p < 2; ++p)
        for (int w = 0; w < pairs::width; ++w)
            t.parts[p].v[w] = tid * 4 + p * 2 + w;
    for (int p = 0; p < 2; ++p)
        for (int w = 0; w < pairs::width; ++w)
            stage[tid * 4 + p * 2 + w] = t.parts[p].v[w];
    __syncthreads();
    out[tid] = stage[(tid * 4 + 4) % 256];
}
