//--blockDim=64 --gridDim=1
// member_alias_template_arg with its barrier weakened to __syncwarp: each thread reads the
// first element the next thread staged, across the warp boundary for thread 31 (RAW).
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

__global__ void member_alias_template_arg_racy(float *out) {
    __shared__ float stage[64 * 4];
    tile<float, pairs> t;
    unsigned tid = threadIdx.x;
    for (int p = 0; p < 2; ++p)
        for (int w = 0; w < pairs::width; ++w)
            t.parts[p].v[w] = tid * 4 + p * 2 + w;
    for (int p = 0; p < 2; ++p)
        for (int w = 0; w < pairs::width; ++w)
            stage[tid * 4 + p * 2 + w] = t.parts[p].v[w];
    __syncwarp();
    out[tid] = stage[(tid * 4 + 4) % 256];
}
