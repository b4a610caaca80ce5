//--blockDim=64 --gridDim=1
// A local array of records whose constructors take references, brace-initialized: the
// element initializers make temporaries, so Clang wraps the list in ExprWithCleanups (as
// `half2 acc[n] = {{0.0f, 0.0f}}` with cuda_fp16). Local arrays never race; the shared tile
// they fill is read mirrored after a barrier.

struct word {
    unsigned short bits;
    word() = default;
    __device__ word(float f) : bits((unsigned short)f) {}
};

struct pair2 {
    word lo, hi;
    pair2() = default;
    __device__ pair2(const word &a, const word &b) : lo(a), hi(b) {}
};

template <int n>
__global__ void record_array_init(const float *in, float *out) {
    __shared__ float tile[64];
    pair2 acc[n] = {{0.0f, 1.0f}};
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) {
        sum += in[threadIdx.x * n + j] + acc[j % 1].hi.bits;
    }
    tile[threadIdx.x] = sum;
    __syncthreads();
    out[threadIdx.x] = tile[63 - threadIdx.x];
}

template __global__ void record_array_init<2>(const float *, float *);
