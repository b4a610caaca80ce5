//--blockDim=128 --gridDim=4
// A staging kernel written with compile-time recursion: Loader<IDX, STRIDE> stores element
// IDX + tid and recurses to Loader<IDX - STRIDE, STRIDE>; the recursion ends in a partial
// specialization selected by a defaulted bool parameter. The read side is chosen by partial
// specialization on the kernel's bool template argument: the identity reader only reads the
// thread's own elements, the mirroring reader reads elements other threads staged. The file
// instantiates the mirroring kernel (`true`) and forgets the barrier between staging and
// reading, which the identity reader would not have needed.

typedef struct {
    int count;
    int flags;
} StageShape;

template <typename T>
struct StageTraits {
    typedef T Type;
    typedef const T *ConstPointer;
    enum { kElementBytes = sizeof(T) };
};

// Primary template: store one element, then recurse.
template <int IDX, int STRIDE, bool DONE = (IDX < 0)>
struct Loader {
    template <typename T>
    __device__ static void load_all(T *dst, const T *src, int tid)
    {
        dst[IDX + tid] = src[IDX + tid];
        Loader<IDX - STRIDE, STRIDE>::load_all(dst, src, tid);
    }
};

// End of the recursion.
template <int IDX, int STRIDE>
struct Loader<IDX, STRIDE, true> {
    template <typename T>
    __device__ static void load_all(T *, const T *, int) {}
};

template <typename T, bool MIRROR>
struct Reader;

template <typename T>
struct Reader<T, false> {
    __device__ static T read(const T *buf, int i, int) { return buf[i]; }
};

template <typename T>
struct Reader<T, true> {
    __device__ static T read(const T *buf, int i, int n) { return buf[n - 1 - i]; }
};

template <typename T, bool MIRROR>
__global__ void loader_recursion(const typename StageTraits<T>::Type *in, T *out, StageShape shape)
{
    typedef typename StageTraits<T>::Type Elem;
    const int kThreads = 128;
    const int kTile = 4 * kThreads;
    __shared__ Elem stage[kTile];

    const Elem *src = in + blockIdx.x * kTile;
    Loader<kTile - kThreads, kThreads>::load_all(stage, src, int(threadIdx.x));

    for (int i = threadIdx.x; i < kTile; i += kThreads) {
        if (i < shape.count) {
            out[blockIdx.x * kTile + i] = Reader<Elem, MIRROR>::read(stage, i, kTile);
        }
    }
}

template struct Reader<float, false>;
template __global__ void loader_recursion<float, true>(const float *, float *, StageShape);
