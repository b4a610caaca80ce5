//--blockDim=128 --gridDim=2
// Templated reduction over dynamically sized shared memory reached through a small
// helper struct; each thread first folds two inputs, then the block folds its buffer.

template <typename T>
struct SharedMemory {
    __device__ T *ptr() const
    {
        extern __shared__ unsigned char dyn_bytes[];
        return reinterpret_cast<T *>(dyn_bytes);
    }
    __device__ operator T *() const { return ptr(); }
};

template <typename T, unsigned int BLOCK>
__global__ void reduce_template(const T *in, T *partial, unsigned int n)
{
    T *buf = SharedMemory<T>();
    unsigned int tid = threadIdx.x;
    unsigned int first = blockIdx.x * (BLOCK * 2) + tid;

    T acc = 0;
    if (first < n) {
        acc = in[first];
    }
    if (first + BLOCK < n) {
        acc += in[first + BLOCK];
    }
    buf[tid] = acc;
    __syncthreads();

    for (unsigned int half = BLOCK / 2; half > 0; half /= 2) {
        if (tid < half) {
            acc += buf[tid + half];
            buf[tid] = acc;
        }
        __syncthreads();
    }

    if (tid == 0) {
        partial[blockIdx.x] = acc;
    }
}

template __global__ void reduce_template<float, 128>(const float *, float *, unsigned int);
