//--blockDim=64 --gridDim=1
// Racy twin of record_array_init: the mirrored read of the shared tile has no barrier.

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
__global__ void record_array_init_racy(const float *in, float *out) {
    __shared__ float tile[64];
    pair2 acc[n] = {{0.0f, 1.0f}};
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) {
        sum += in[threadIdx.x * n + j] + acc[j % 1].hi.bits;
    }
    tile[threadIdx.x] = sum;
    out[threadIdx.x] = tile[63 - threadIdx.x];
}

template __global__ void record_array_init_racy<2>(const float *, float *);
