// dma_lib.h: a CudaDMA-style library of warp-specialized copy engines, written for the
// autosync corpus (front-end size and speed benchmark). DMA warps move data between global
// and shared memory while compute warps work; the hand-off uses PTX named barriers issued
// from base-class methods. Most of this header is never instantiated by the kernel that
// includes it, as with real template libraries.
//
// Layout of the header:
//   1. compile-time utilities (integer math, type lists, traits)
//   2. named-barrier primitives (inline PTX with %0/%1 operands)
//   3. the engine base class and its copy loops
//   4. engines: sequential, strided, indirect, transposing, scattering, broadcasting
//   5. specializations by alignment and bytes per thread
//   6. multi-stage pipelines and buffer rings
//   7. host-side launch descriptions
#ifndef DMA_LIB_H
#define DMA_LIB_H

#define DMA_LIB_VERSION_MAJOR 2
#define DMA_LIB_VERSION_MINOR 4

#define DMA_WARP_SIZE 32
#define DMA_MAX_BARRIERS 16

#ifndef DMA_INLINE
#define DMA_INLINE __device__ __forceinline__
#endif

#ifndef DMA_HOST_DEVICE
#define DMA_HOST_DEVICE __host__ __device__ __forceinline__
#endif

namespace dmalib {

// ---------------------------------------------------------------------------------------
// 1. Compile-time utilities
// ---------------------------------------------------------------------------------------

template <bool COND>
struct StaticCheck;

template <>
struct StaticCheck<true> {
    enum { value = 1 };
};

template <int A, int B>
struct Min {
    enum { value = A < B ? A : B };
};

template <int A, int B>
struct Max {
    enum { value = A > B ? A : B };
};

template <int N, int D>
struct DivUp {
    enum { value = (N + D - 1) / D };
};

template <int N, int M>
struct RoundUp {
    enum { value = DivUp<N, M>::value * M };
};

template <int N>
struct IsPow2 {
    enum { value = N > 0 && (N & (N - 1)) == 0 };
};

template <int N, int ACC = 0>
struct Log2 {
    enum { value = Log2<N / 2, ACC + 1>::value };
};

template <int ACC>
struct Log2<1, ACC> {
    enum { value = ACC };
};

template <int ACC>
struct Log2<0, ACC> {
    enum { value = ACC };
};

template <int N>
struct NextPow2 {
    enum { value = IsPow2<N>::value ? N : 1 << (Log2<N>::value + 1) };
};

template <int THREADS>
struct WarpCount {
    enum { value = DivUp<THREADS, DMA_WARP_SIZE>::value };
};

template <bool COND, typename A, typename B>
struct Select {
    typedef A Type;
};

template <typename A, typename B>
struct Select<false, A, B> {
    typedef B Type;
};

template <typename A, typename B>
struct SameType {
    enum { value = 0 };
};

template <typename A>
struct SameType<A, A> {
    enum { value = 1 };
};

template <typename T>
struct RemoveConst {
    typedef T Type;
};

template <typename T>
struct RemoveConst<const T> {
    typedef T Type;
};

template <typename T>
struct RemovePointer {
    typedef T Type;
};

template <typename T>
struct RemovePointer<T *> {
    typedef T Type;
};

struct NullType {
};

template <typename H, typename T>
struct TypeList {
    typedef H Head;
    typedef T Tail;
};

template <typename L>
struct Length;

template <>
struct Length<NullType> {
    enum { value = 0 };
};

template <typename H, typename T>
struct Length<TypeList<H, T> > {
    enum { value = 1 + Length<T>::value };
};

template <typename L, int I>
struct TypeAt;

template <typename H, typename T>
struct TypeAt<TypeList<H, T>, 0> {
    typedef H Type;
};

template <typename H, typename T, int I>
struct TypeAt<TypeList<H, T>, I> {
    typedef typename TypeAt<T, I - 1>::Type Type;
};

// Vector types by byte width, used by the aligned copy loops.
template <int BYTES>
struct VectorOfBytes;

template <>
struct VectorOfBytes<4> {
    typedef float Type;
    enum { kFloats = 1 };
};

template <>
struct VectorOfBytes<8> {
    typedef float2 Type;
    enum { kFloats = 2 };
};

template <>
struct VectorOfBytes<16> {
    typedef float4 Type;
    enum { kFloats = 4 };
};

template <typename T>
struct ElementTraits {
    typedef T Type;
    typedef const T ConstType;
    enum { kBytes = sizeof(T), kIsVector = 0 };
};

template <>
struct ElementTraits<float2> {
    typedef float2 Type;
    typedef const float2 ConstType;
    enum { kBytes = 8, kIsVector = 1 };
};

template <>
struct ElementTraits<float4> {
    typedef float4 Type;
    typedef const float4 ConstType;
    enum { kBytes = 16, kIsVector = 1 };
};

// Largest alignment both addresses are known to satisfy.
template <int ALIGN_A, int ALIGN_B>
struct CommonAlignment {
    enum { value = Min<ALIGN_A, ALIGN_B>::value };
};

// Bytes-per-thread categories used to pick a copy strategy.
enum BytesCategory {
    kCategoryTiny = 0,
    kCategorySmall = 1,
    kCategoryMedium = 2,
    kCategoryLarge = 3,
    kCategoryHuge = 4,
    kCategoryFull = 5
};

template <int BYTES_PER_THREAD>
struct CategoryOf {
    enum {
        value = BYTES_PER_THREAD <= 16    ? kCategoryTiny
                : BYTES_PER_THREAD <= 64  ? kCategorySmall
                : BYTES_PER_THREAD <= 128 ? kCategoryMedium
                : BYTES_PER_THREAD <= 256 ? kCategoryLarge
                : BYTES_PER_THREAD <= 512 ? kCategoryHuge
                                          : kCategoryFull
    };
};

// Compile-time description of a warp role split.
template <int DMA_WARPS, int COMPUTE_WARPS>
struct RoleSplit {
    enum {
        kDmaWarps = DMA_WARPS,
        kComputeWarps = COMPUTE_WARPS,
        kDmaThreads = DMA_WARPS * DMA_WARP_SIZE,
        kComputeThreads = COMPUTE_WARPS * DMA_WARP_SIZE,
        kTotalThreads = (DMA_WARPS + COMPUTE_WARPS) * DMA_WARP_SIZE
    };
};

// ---------------------------------------------------------------------------------------
// 2. Named-barrier primitives
// ---------------------------------------------------------------------------------------

DMA_INLINE void named_sync(int id, int count)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}

DMA_INLINE void named_arrive(int id, int count)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}

template <int ID, int COUNT>
struct NamedBarrierOps {
    enum { kId = ID, kCount = COUNT };
    static DMA_INLINE void sync() { named_sync(ID, COUNT); }
    static DMA_INLINE void arrive() { named_arrive(ID, COUNT); }
};

// A pair of barriers forming one hand-off channel (full / empty).
template <int FULL_ID, int EMPTY_ID, int COUNT>
struct Channel {
    typedef NamedBarrierOps<FULL_ID, COUNT> Full;
    typedef NamedBarrierOps<EMPTY_ID, COUNT> Empty;
    enum { kFullId = FULL_ID, kEmptyId = EMPTY_ID, kCount = COUNT };
};

// Barrier IDs handed out to the stages of a pipeline, two per stage from BASE.
template <int BASE, int STAGE>
struct StageBarriers {
    enum { kFull = BASE + 2 * STAGE, kEmpty = BASE + 2 * STAGE + 1 };
};

// ---------------------------------------------------------------------------------------
// 3. Engine base class
// ---------------------------------------------------------------------------------------

// DMA_THREADS threads copy, COMPUTE_THREADS threads consume. EMPTY_ID: compute arrives, DMA
// syncs (the buffer may be overwritten). FULL_ID: DMA arrives, compute syncs (the buffer
// holds the data).
template <int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaEngineBase {
public:
    enum { kDmaThreads = DMA_THREADS, kComputeThreads = COMPUTE_THREADS };
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS };
    static const int kEmptyId = EMPTY_ID;
    static const int kFullId = FULL_ID;

    DMA_INLINE DmaEngineBase(bool is_dma, int dma_thread_offset)
        : is_dma_(is_dma), dma_tid_(int(threadIdx.x) - dma_thread_offset)
    {
    }

    DMA_INLINE bool owns_this_thread() const { return is_dma_; }
    DMA_INLINE int dma_thread() const { return dma_tid_; }

    // Compute side.
    DMA_INLINE void start_async_dma() const { named_arrive(kEmptyId, kTotalThreads); }
    DMA_INLINE void wait_for_dma_finish() const { named_sync(kFullId, kTotalThreads); }

    // DMA side.
    DMA_INLINE void wait_for_dma_start() const { named_sync(kEmptyId, kTotalThreads); }
    DMA_INLINE void finish_async_dma() const { named_arrive(kFullId, kTotalThreads); }

protected:
    // K elements per DMA thread, DMA_THREADS apart.
    template <int K, typename T>
    DMA_INLINE void copy_strided(T *dst, const T *src) const
    {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            dst[i] = src[i];
        }
    }

    // ROWS x COLS elements, the source rows SRC_STRIDE apart, the destination dense.
    template <int ROWS, int COLS, int SRC_STRIDE, typename T>
    DMA_INLINE void copy_rows(T *dst, const T *src) const
    {
#pragma unroll
        for (int k = 0; k < (ROWS * COLS) / DMA_THREADS; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            int r = i / COLS;
            int c = i % COLS;
            dst[i] = src[r * SRC_STRIDE + c];
        }
    }

    // Elements picked through an index table.
    template <int K, typename T>
    DMA_INLINE void copy_indexed(T *dst, const T *src, const int *index) const
    {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            dst[i] = src[index[i]];
        }
    }

    bool is_dma_;
    int dma_tid_;
};

// ---------------------------------------------------------------------------------------
// 4. Engines
// ---------------------------------------------------------------------------------------

// Contiguous copy of ELEMENTS elements per transfer.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaSequential : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    static const int kPerThread = ELEMENTS / DMA_THREADS;
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaSequential(bool is_dma, Element *buffer, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer)
    {
    }

    DMA_INLINE void execute_dma(const Element *src) const
    {
        this->wait_for_dma_start();
        this->template copy_strided<kPerThread>(buffer_, src);
        this->finish_async_dma();
    }

    DMA_INLINE Element *buffer() const { return buffer_; }

private:
    Element *buffer_;
};

// ROWS rows of COLS elements, ROW_STRIDE apart in the source, packed in shared memory.
template <typename T, int ROWS, int COLS, int ROW_STRIDE, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID,
          int FULL_ID>
class DmaStrided : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    enum { kRows = ROWS, kCols = COLS, kElements = ROWS * COLS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaStrided(bool is_dma, Element *buffer, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer)
    {
    }

    DMA_INLINE void execute_dma(const Element *src) const
    {
        this->wait_for_dma_start();
        this->template copy_rows<ROWS, COLS, ROW_STRIDE>(buffer_, src);
        this->finish_async_dma();
    }

    // The copy alone, for callers that run the barrier protocol themselves.
    DMA_INLINE void execute_dma_no_sync(const Element *src) const
    {
        this->template copy_rows<ROWS, COLS, ROW_STRIDE>(buffer_, src);
    }

    DMA_INLINE Element *buffer() const { return buffer_; }

private:
    Element *buffer_;
};

// Gather through an index table.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaIndirect : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    static const int kPerThread = ELEMENTS / DMA_THREADS;
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaIndirect(bool is_dma, Element *buffer, const int *index, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer), index_(index)
    {
    }

    DMA_INLINE void execute_dma(const Element *src) const
    {
        this->wait_for_dma_start();
        this->template copy_indexed<kPerThread>(buffer_, src, index_);
        this->finish_async_dma();
    }

private:
    Element *buffer_;
    const int *index_;
};

// Transposing copy: a ROWS x COLS source block lands as COLS x (ROWS + PAD) in shared memory.
template <typename T, int ROWS, int COLS, int PAD, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaTranspose : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    enum { kPitch = ROWS + PAD, kPerThread = (ROWS * COLS) / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaTranspose(bool is_dma, Element *buffer, int src_stride, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer), src_stride_(src_stride)
    {
    }

    DMA_INLINE void execute_dma(const Element *src) const
    {
        this->wait_for_dma_start();
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + this->dma_thread();
            int r = i / COLS;
            int c = i % COLS;
            buffer_[c * kPitch + r] = src[r * src_stride_ + c];
        }
        this->finish_async_dma();
    }

private:
    Element *buffer_;
    int src_stride_;
};

// Scatter from shared memory to global memory (the reverse direction): the compute warps
// fill the buffer, the DMA warp drains it.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaDrain : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    static const int kPerThread = ELEMENTS / DMA_THREADS;
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaDrain(bool is_dma, const Element *buffer, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer)
    {
    }

    DMA_INLINE void execute_dma(Element *dst) const
    {
        this->wait_for_dma_finish();
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + this->dma_thread();
            dst[i] = buffer_[i];
        }
        this->start_async_dma();
    }

private:
    const Element *buffer_;
};

// One DMA warp broadcasting a small parameter block to every compute warp.
template <typename T, int ELEMENTS, int COMPUTE_THREADS, int FULL_ID>
class DmaBroadcast {
public:
    enum { kTotalThreads = DMA_WARP_SIZE + COMPUTE_THREADS };

    DMA_INLINE DmaBroadcast(T *buffer) : buffer_(buffer) {}

    DMA_INLINE void publish(const T *src, int lane) const
    {
        for (int i = lane; i < ELEMENTS; i += DMA_WARP_SIZE) {
            buffer_[i] = src[i];
        }
        named_arrive(FULL_ID, kTotalThreads);
    }

    DMA_INLINE void receive() const { named_sync(FULL_ID, kTotalThreads); }

private:
    T *buffer_;
};

// ---------------------------------------------------------------------------------------
// 4b. Halo engines: a tile plus RADIUS elements on each side, clamped at the array edges
// ---------------------------------------------------------------------------------------

template <typename T, int TILE, int RADIUS, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaHalo1D : public DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaEngineBase<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    enum { kTile = TILE, kRadius = RADIUS, kSpan = TILE + 2 * RADIUS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaHalo1D(bool is_dma, Element *buffer, int length, int dma_thread_offset)
        : Base(is_dma, dma_thread_offset), buffer_(buffer), length_(length)
    {
    }

    // Loads elements [first - RADIUS, first + TILE + RADIUS), clamped to [0, length).
    DMA_INLINE void execute_dma(const Element *src, int first) const
    {
        this->wait_for_dma_start();
        for (int i = this->dma_thread(); i < kSpan; i += DMA_THREADS) {
            int g = first - RADIUS + i;
            g = g < 0 ? 0 : (g >= length_ ? length_ - 1 : g);
            buffer_[i] = src[g];
        }
        this->finish_async_dma();
    }

private:
    Element *buffer_;
    int length_;
};

// Radius-1 stencil weights and the matching tap loop.
struct StencilTaps1 {
    enum { kRadius = 1, kTaps = 3 };

    template <typename T>
    static DMA_HOST_DEVICE T weight(int d)
    {
        return T(1) / T(kTaps) + T(0) * T(d);
    }

    // Applies the taps around buf[center] (buf holds the halo).
    template <typename T>
    static DMA_INLINE T apply(const T *buf, int center)
    {
        T acc = T(0);
#pragma unroll
        for (int d = -kRadius; d <= kRadius; ++d) {
            acc += weight<T>(d) * buf[center + kRadius + d];
        }
        return acc;
    }
};

template <typename T, int TILE, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaStencil1 : public DmaHalo1D<T, TILE, 1, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaHalo1D<T, TILE, 1, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    typedef StencilTaps1 Taps;

    DMA_INLINE DmaStencil1(bool is_dma, T *buffer, int length, int dma_thread_offset)
        : Base(is_dma, buffer, length, dma_thread_offset)
    {
    }

    // Compute side: one output per compute thread and pass.
    DMA_INLINE void compute(const T *halo, T *dst, int compute_tid) const
    {
        for (int i = compute_tid; i < TILE; i += COMPUTE_THREADS) {
            dst[i] = Taps::template apply<T>(halo, i);
        }
    }
};

// Radius-2 stencil weights and the matching tap loop.
struct StencilTaps2 {
    enum { kRadius = 2, kTaps = 5 };

    template <typename T>
    static DMA_HOST_DEVICE T weight(int d)
    {
        return T(1) / T(kTaps) + T(0) * T(d);
    }

    // Applies the taps around buf[center] (buf holds the halo).
    template <typename T>
    static DMA_INLINE T apply(const T *buf, int center)
    {
        T acc = T(0);
#pragma unroll
        for (int d = -kRadius; d <= kRadius; ++d) {
            acc += weight<T>(d) * buf[center + kRadius + d];
        }
        return acc;
    }
};

template <typename T, int TILE, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaStencil2 : public DmaHalo1D<T, TILE, 2, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaHalo1D<T, TILE, 2, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    typedef StencilTaps2 Taps;

    DMA_INLINE DmaStencil2(bool is_dma, T *buffer, int length, int dma_thread_offset)
        : Base(is_dma, buffer, length, dma_thread_offset)
    {
    }

    // Compute side: one output per compute thread and pass.
    DMA_INLINE void compute(const T *halo, T *dst, int compute_tid) const
    {
        for (int i = compute_tid; i < TILE; i += COMPUTE_THREADS) {
            dst[i] = Taps::template apply<T>(halo, i);
        }
    }
};

// Radius-3 stencil weights and the matching tap loop.
struct StencilTaps3 {
    enum { kRadius = 3, kTaps = 7 };

    template <typename T>
    static DMA_HOST_DEVICE T weight(int d)
    {
        return T(1) / T(kTaps) + T(0) * T(d);
    }

    // Applies the taps around buf[center] (buf holds the halo).
    template <typename T>
    static DMA_INLINE T apply(const T *buf, int center)
    {
        T acc = T(0);
#pragma unroll
        for (int d = -kRadius; d <= kRadius; ++d) {
            acc += weight<T>(d) * buf[center + kRadius + d];
        }
        return acc;
    }
};

template <typename T, int TILE, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaStencil3 : public DmaHalo1D<T, TILE, 3, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaHalo1D<T, TILE, 3, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    typedef StencilTaps3 Taps;

    DMA_INLINE DmaStencil3(bool is_dma, T *buffer, int length, int dma_thread_offset)
        : Base(is_dma, buffer, length, dma_thread_offset)
    {
    }

    // Compute side: one output per compute thread and pass.
    DMA_INLINE void compute(const T *halo, T *dst, int compute_tid) const
    {
        for (int i = compute_tid; i < TILE; i += COMPUTE_THREADS) {
            dst[i] = Taps::template apply<T>(halo, i);
        }
    }
};

// Radius-4 stencil weights and the matching tap loop.
struct StencilTaps4 {
    enum { kRadius = 4, kTaps = 9 };

    template <typename T>
    static DMA_HOST_DEVICE T weight(int d)
    {
        return T(1) / T(kTaps) + T(0) * T(d);
    }

    // Applies the taps around buf[center] (buf holds the halo).
    template <typename T>
    static DMA_INLINE T apply(const T *buf, int center)
    {
        T acc = T(0);
#pragma unroll
        for (int d = -kRadius; d <= kRadius; ++d) {
            acc += weight<T>(d) * buf[center + kRadius + d];
        }
        return acc;
    }
};

template <typename T, int TILE, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaStencil4 : public DmaHalo1D<T, TILE, 4, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaHalo1D<T, TILE, 4, DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    typedef StencilTaps4 Taps;

    DMA_INLINE DmaStencil4(bool is_dma, T *buffer, int length, int dma_thread_offset)
        : Base(is_dma, buffer, length, dma_thread_offset)
    {
    }

    // Compute side: one output per compute thread and pass.
    DMA_INLINE void compute(const T *halo, T *dst, int compute_tid) const
    {
        for (int i = compute_tid; i < TILE; i += COMPUTE_THREADS) {
            dst[i] = Taps::template apply<T>(halo, i);
        }
    }
};

// ---------------------------------------------------------------------------------------
// 5. Copy policies by alignment and bytes per thread
// ---------------------------------------------------------------------------------------
//
// StridedCopyPolicy<ALIGNMENT, CATEGORY, DMA_THREADS> picks the vector width and the unroll
// depth of a strided copy. One partial specialization per (alignment, category) pair.

template <int ALIGNMENT, int CATEGORY, int DMA_THREADS>
struct StridedCopyPolicy;

// Alignment 4 bytes (1 float per access), tiny transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategoryTiny, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 1,
        kCategory = kCategoryTiny,
        kVectorsPerPass = DMA_THREADS * 1,
        kFloatsPerPass = DMA_THREADS * 1 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 4 bytes (1 float per access), small transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategorySmall, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 2,
        kCategory = kCategorySmall,
        kVectorsPerPass = DMA_THREADS * 2,
        kFloatsPerPass = DMA_THREADS * 2 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 4 bytes (1 float per access), medium transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategoryMedium, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 4,
        kCategory = kCategoryMedium,
        kVectorsPerPass = DMA_THREADS * 4,
        kFloatsPerPass = DMA_THREADS * 4 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 4 bytes (1 float per access), large transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategoryLarge, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 8,
        kCategory = kCategoryLarge,
        kVectorsPerPass = DMA_THREADS * 8,
        kFloatsPerPass = DMA_THREADS * 8 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 4 bytes (1 float per access), huge transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategoryHuge, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 16,
        kCategory = kCategoryHuge,
        kVectorsPerPass = DMA_THREADS * 16,
        kFloatsPerPass = DMA_THREADS * 16 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 4 bytes (1 float per access), full transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<4, kCategoryFull, DMA_THREADS> {
    typedef typename VectorOfBytes<4>::Type Vector;
    enum {
        kAlignment = 4,
        kFloatsPerVector = 1,
        kUnroll = 32,
        kCategory = kCategoryFull,
        kVectorsPerPass = DMA_THREADS * 32,
        kFloatsPerPass = DMA_THREADS * 32 * 1
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 4; }
};

// Alignment 8 bytes (2 floats per access), tiny transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategoryTiny, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 1,
        kCategory = kCategoryTiny,
        kVectorsPerPass = DMA_THREADS * 1,
        kFloatsPerPass = DMA_THREADS * 1 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 8 bytes (2 floats per access), small transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategorySmall, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 2,
        kCategory = kCategorySmall,
        kVectorsPerPass = DMA_THREADS * 2,
        kFloatsPerPass = DMA_THREADS * 2 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 8 bytes (2 floats per access), medium transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategoryMedium, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 4,
        kCategory = kCategoryMedium,
        kVectorsPerPass = DMA_THREADS * 4,
        kFloatsPerPass = DMA_THREADS * 4 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 8 bytes (2 floats per access), large transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategoryLarge, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 8,
        kCategory = kCategoryLarge,
        kVectorsPerPass = DMA_THREADS * 8,
        kFloatsPerPass = DMA_THREADS * 8 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 8 bytes (2 floats per access), huge transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategoryHuge, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 16,
        kCategory = kCategoryHuge,
        kVectorsPerPass = DMA_THREADS * 16,
        kFloatsPerPass = DMA_THREADS * 16 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 8 bytes (2 floats per access), full transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<8, kCategoryFull, DMA_THREADS> {
    typedef typename VectorOfBytes<8>::Type Vector;
    enum {
        kAlignment = 8,
        kFloatsPerVector = 2,
        kUnroll = 32,
        kCategory = kCategoryFull,
        kVectorsPerPass = DMA_THREADS * 32,
        kFloatsPerPass = DMA_THREADS * 32 * 2
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 8; }
};

// Alignment 16 bytes (4 floats per access), tiny transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategoryTiny, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 1,
        kCategory = kCategoryTiny,
        kVectorsPerPass = DMA_THREADS * 1,
        kFloatsPerPass = DMA_THREADS * 1 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// Alignment 16 bytes (4 floats per access), small transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategorySmall, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 2,
        kCategory = kCategorySmall,
        kVectorsPerPass = DMA_THREADS * 2,
        kFloatsPerPass = DMA_THREADS * 2 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// Alignment 16 bytes (4 floats per access), medium transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategoryMedium, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 4,
        kCategory = kCategoryMedium,
        kVectorsPerPass = DMA_THREADS * 4,
        kFloatsPerPass = DMA_THREADS * 4 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// Alignment 16 bytes (4 floats per access), large transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategoryLarge, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 8,
        kCategory = kCategoryLarge,
        kVectorsPerPass = DMA_THREADS * 8,
        kFloatsPerPass = DMA_THREADS * 8 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// Alignment 16 bytes (4 floats per access), huge transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategoryHuge, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 16,
        kCategory = kCategoryHuge,
        kVectorsPerPass = DMA_THREADS * 16,
        kFloatsPerPass = DMA_THREADS * 16 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// Alignment 16 bytes (4 floats per access), full transfers.
template <int DMA_THREADS>
struct StridedCopyPolicy<16, kCategoryFull, DMA_THREADS> {
    typedef typename VectorOfBytes<16>::Type Vector;
    enum {
        kAlignment = 16,
        kFloatsPerVector = 4,
        kUnroll = 32,
        kCategory = kCategoryFull,
        kVectorsPerPass = DMA_THREADS * 32,
        kFloatsPerPass = DMA_THREADS * 32 * 4
    };

    // Copies `count` vectors, DMA_THREADS apart, starting at the thread's own vector.
    static DMA_INLINE void copy(Vector *dst, const Vector *src, int tid, int count)
    {
        for (int base = 0; base < count; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < count) {
                    dst[i] = src[i];
                }
            }
        }
    }

    // Copies `rows` rows of `row_vectors` vectors, the source rows `src_pitch` vectors apart.
    static DMA_INLINE void copy_rows(Vector *dst, const Vector *src, int tid, int rows, int row_vectors,
                                     int src_pitch)
    {
        int total = rows * row_vectors;
        for (int base = 0; base < total; base += kVectorsPerPass) {
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                int i = base + u * DMA_THREADS + tid;
                if (i < total) {
                    int r = i / row_vectors;
                    int c = i - r * row_vectors;
                    dst[i] = src[r * src_pitch + c];
                }
            }
        }
    }

    // Number of passes the copy of `count` vectors takes.
    static DMA_HOST_DEVICE int passes(int count) { return (count + kVectorsPerPass - 1) / kVectorsPerPass; }

    // Bytes moved per pass by all DMA threads.
    static DMA_HOST_DEVICE int bytes_per_pass() { return kVectorsPerPass * 16; }
};

// The policy a transfer of BYTES_PER_THREAD bytes per thread at ALIGNMENT uses.
template <int ALIGNMENT, int BYTES_PER_THREAD, int DMA_THREADS>
struct PolicyFor {
    typedef StridedCopyPolicy<ALIGNMENT, CategoryOf<BYTES_PER_THREAD>::value, DMA_THREADS> Type;
};

// ---------------------------------------------------------------------------------------
// 6. Multi-stage pipelines and buffer rings
// ---------------------------------------------------------------------------------------
//
// DmaPipeline<T, STAGES, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID>: STAGES buffers of
// ELEMENTS elements; stage s uses barriers BASE_ID + 2s (full) and BASE_ID + 2s + 1 (empty).

template <typename T, int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline;

// 1 stage.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 1, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 1, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 2 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 2, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 2, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 3 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 3, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 3, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

    // Stage 2: barriers 4 and 5 above BASE_ID.
    DMA_INLINE void produce_2(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[2 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_2() const
    {
        named_sync(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
        return buffers_ + 2 * ELEMENTS;
    }

    DMA_INLINE void release_2() const { named_arrive(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 4 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 4, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 4, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

    // Stage 2: barriers 4 and 5 above BASE_ID.
    DMA_INLINE void produce_2(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[2 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_2() const
    {
        named_sync(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
        return buffers_ + 2 * ELEMENTS;
    }

    DMA_INLINE void release_2() const { named_arrive(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads); }

    // Stage 3: barriers 6 and 7 above BASE_ID.
    DMA_INLINE void produce_3(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[3 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_3() const
    {
        named_sync(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
        return buffers_ + 3 * ELEMENTS;
    }

    DMA_INLINE void release_3() const { named_arrive(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 5 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 5, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 5, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

    // Stage 2: barriers 4 and 5 above BASE_ID.
    DMA_INLINE void produce_2(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[2 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_2() const
    {
        named_sync(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
        return buffers_ + 2 * ELEMENTS;
    }

    DMA_INLINE void release_2() const { named_arrive(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads); }

    // Stage 3: barriers 6 and 7 above BASE_ID.
    DMA_INLINE void produce_3(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[3 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_3() const
    {
        named_sync(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
        return buffers_ + 3 * ELEMENTS;
    }

    DMA_INLINE void release_3() const { named_arrive(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads); }

    // Stage 4: barriers 8 and 9 above BASE_ID.
    DMA_INLINE void produce_4(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[4 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_4() const
    {
        named_sync(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
        return buffers_ + 4 * ELEMENTS;
    }

    DMA_INLINE void release_4() const { named_arrive(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 6 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 6, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 6, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

    // Stage 2: barriers 4 and 5 above BASE_ID.
    DMA_INLINE void produce_2(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[2 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_2() const
    {
        named_sync(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
        return buffers_ + 2 * ELEMENTS;
    }

    DMA_INLINE void release_2() const { named_arrive(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads); }

    // Stage 3: barriers 6 and 7 above BASE_ID.
    DMA_INLINE void produce_3(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[3 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_3() const
    {
        named_sync(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
        return buffers_ + 3 * ELEMENTS;
    }

    DMA_INLINE void release_3() const { named_arrive(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads); }

    // Stage 4: barriers 8 and 9 above BASE_ID.
    DMA_INLINE void produce_4(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[4 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_4() const
    {
        named_sync(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
        return buffers_ + 4 * ELEMENTS;
    }

    DMA_INLINE void release_4() const { named_arrive(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads); }

    // Stage 5: barriers 10 and 11 above BASE_ID.
    DMA_INLINE void produce_5(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 5>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[5 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 5>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_5() const
    {
        named_sync(StageBarriers<BASE_ID, 5>::kFull, kTotalThreads);
        return buffers_ + 5 * ELEMENTS;
    }

    DMA_INLINE void release_5() const { named_arrive(StageBarriers<BASE_ID, 5>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// 7 stages.
template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DmaPipeline<T, 7, ELEMENTS, DMA_THREADS, COMPUTE_THREADS, BASE_ID> {
public:
    enum { kStages = 7, kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };
    typedef typename ElementTraits<T>::Type Element;

    DMA_INLINE DmaPipeline(Element *buffers, int dma_tid) : buffers_(buffers), dma_tid_(dma_tid) {}

    DMA_INLINE Element *stage_buffer(int s) const { return buffers_ + s * ELEMENTS; }

    // Stage 0: barriers 0 and 1 above BASE_ID.
    DMA_INLINE void produce_0(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[0 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_0() const
    {
        named_sync(StageBarriers<BASE_ID, 0>::kFull, kTotalThreads);
        return buffers_ + 0 * ELEMENTS;
    }

    DMA_INLINE void release_0() const { named_arrive(StageBarriers<BASE_ID, 0>::kEmpty, kTotalThreads); }

    // Stage 1: barriers 2 and 3 above BASE_ID.
    DMA_INLINE void produce_1(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[1 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_1() const
    {
        named_sync(StageBarriers<BASE_ID, 1>::kFull, kTotalThreads);
        return buffers_ + 1 * ELEMENTS;
    }

    DMA_INLINE void release_1() const { named_arrive(StageBarriers<BASE_ID, 1>::kEmpty, kTotalThreads); }

    // Stage 2: barriers 4 and 5 above BASE_ID.
    DMA_INLINE void produce_2(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[2 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_2() const
    {
        named_sync(StageBarriers<BASE_ID, 2>::kFull, kTotalThreads);
        return buffers_ + 2 * ELEMENTS;
    }

    DMA_INLINE void release_2() const { named_arrive(StageBarriers<BASE_ID, 2>::kEmpty, kTotalThreads); }

    // Stage 3: barriers 6 and 7 above BASE_ID.
    DMA_INLINE void produce_3(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[3 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_3() const
    {
        named_sync(StageBarriers<BASE_ID, 3>::kFull, kTotalThreads);
        return buffers_ + 3 * ELEMENTS;
    }

    DMA_INLINE void release_3() const { named_arrive(StageBarriers<BASE_ID, 3>::kEmpty, kTotalThreads); }

    // Stage 4: barriers 8 and 9 above BASE_ID.
    DMA_INLINE void produce_4(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[4 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_4() const
    {
        named_sync(StageBarriers<BASE_ID, 4>::kFull, kTotalThreads);
        return buffers_ + 4 * ELEMENTS;
    }

    DMA_INLINE void release_4() const { named_arrive(StageBarriers<BASE_ID, 4>::kEmpty, kTotalThreads); }

    // Stage 5: barriers 10 and 11 above BASE_ID.
    DMA_INLINE void produce_5(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 5>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[5 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 5>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_5() const
    {
        named_sync(StageBarriers<BASE_ID, 5>::kFull, kTotalThreads);
        return buffers_ + 5 * ELEMENTS;
    }

    DMA_INLINE void release_5() const { named_arrive(StageBarriers<BASE_ID, 5>::kEmpty, kTotalThreads); }

    // Stage 6: barriers 12 and 13 above BASE_ID.
    DMA_INLINE void produce_6(const Element *src, bool wait_empty) const
    {
        if (wait_empty) {
            named_sync(StageBarriers<BASE_ID, 6>::kEmpty, kTotalThreads);
        }
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            buffers_[6 * ELEMENTS + i] = src[i];
        }
        named_arrive(StageBarriers<BASE_ID, 6>::kFull, kTotalThreads);
    }

    DMA_INLINE const Element *consume_6() const
    {
        named_sync(StageBarriers<BASE_ID, 6>::kFull, kTotalThreads);
        return buffers_ + 6 * ELEMENTS;
    }

    DMA_INLINE void release_6() const { named_arrive(StageBarriers<BASE_ID, 6>::kEmpty, kTotalThreads); }

private:
    Element *buffers_;
    int dma_tid_;
};

// A ring of buffers addressed by a running counter; the stage index wraps at STAGES.
template <int STAGES>
struct RingIndex {
    enum { kStages = STAGES, kMask = IsPow2<STAGES>::value ? STAGES - 1 : -1 };
    static DMA_HOST_DEVICE int wrap(int i) { return kMask >= 0 ? (i & kMask) : (i % STAGES); }
    static DMA_HOST_DEVICE int full_id(int base, int i) { return base + 2 * wrap(i); }
    static DMA_HOST_DEVICE int empty_id(int base, int i) { return base + 2 * wrap(i) + 1; }
    static DMA_HOST_DEVICE int generation(int i) { return i / STAGES; }
};

// Ring of float buffers.
template <int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class FloatRing {
public:
    typedef float Element;
    typedef RingIndex<STAGES> Index;
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };

    DMA_INLINE FloatRing(Element *storage) : storage_(storage) {}

    DMA_INLINE Element *slot(int i) const { return storage_ + Index::wrap(i) * ELEMENTS; }

    DMA_INLINE void fill(int i, const Element *src, int dma_tid) const
    {
        if (i >= STAGES) {
            named_sync(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
        Element *dst = slot(i);
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            dst[k * DMA_THREADS + dma_tid] = src[k * DMA_THREADS + dma_tid];
        }
        named_arrive(Index::full_id(BASE_ID, i), kTotalThreads);
    }

    DMA_INLINE const Element *acquire(int i) const
    {
        named_sync(Index::full_id(BASE_ID, i), kTotalThreads);
        return slot(i);
    }

    DMA_INLINE void release(int i, int total) const
    {
        if (i + STAGES < total) {
            named_arrive(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
    }

private:
    Element *storage_;
};

// Ring of float2 buffers.
template <int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class Float2Ring {
public:
    typedef float2 Element;
    typedef RingIndex<STAGES> Index;
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };

    DMA_INLINE Float2Ring(Element *storage) : storage_(storage) {}

    DMA_INLINE Element *slot(int i) const { return storage_ + Index::wrap(i) * ELEMENTS; }

    DMA_INLINE void fill(int i, const Element *src, int dma_tid) const
    {
        if (i >= STAGES) {
            named_sync(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
        Element *dst = slot(i);
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            dst[k * DMA_THREADS + dma_tid] = src[k * DMA_THREADS + dma_tid];
        }
        named_arrive(Index::full_id(BASE_ID, i), kTotalThreads);
    }

    DMA_INLINE const Element *acquire(int i) const
    {
        named_sync(Index::full_id(BASE_ID, i), kTotalThreads);
        return slot(i);
    }

    DMA_INLINE void release(int i, int total) const
    {
        if (i + STAGES < total) {
            named_arrive(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
    }

private:
    Element *storage_;
};

// Ring of float4 buffers.
template <int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class Float4Ring {
public:
    typedef float4 Element;
    typedef RingIndex<STAGES> Index;
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };

    DMA_INLINE Float4Ring(Element *storage) : storage_(storage) {}

    DMA_INLINE Element *slot(int i) const { return storage_ + Index::wrap(i) * ELEMENTS; }

    DMA_INLINE void fill(int i, const Element *src, int dma_tid) const
    {
        if (i >= STAGES) {
            named_sync(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
        Element *dst = slot(i);
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            dst[k * DMA_THREADS + dma_tid] = src[k * DMA_THREADS + dma_tid];
        }
        named_arrive(Index::full_id(BASE_ID, i), kTotalThreads);
    }

    DMA_INLINE const Element *acquire(int i) const
    {
        named_sync(Index::full_id(BASE_ID, i), kTotalThreads);
        return slot(i);
    }

    DMA_INLINE void release(int i, int total) const
    {
        if (i + STAGES < total) {
            named_arrive(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
    }

private:
    Element *storage_;
};

// Ring of int buffers.
template <int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class IntRing {
public:
    typedef int Element;
    typedef RingIndex<STAGES> Index;
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };

    DMA_INLINE IntRing(Element *storage) : storage_(storage) {}

    DMA_INLINE Element *slot(int i) const { return storage_ + Index::wrap(i) * ELEMENTS; }

    DMA_INLINE void fill(int i, const Element *src, int dma_tid) const
    {
        if (i >= STAGES) {
            named_sync(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
        Element *dst = slot(i);
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            dst[k * DMA_THREADS + dma_tid] = src[k * DMA_THREADS + dma_tid];
        }
        named_arrive(Index::full_id(BASE_ID, i), kTotalThreads);
    }

    DMA_INLINE const Element *acquire(int i) const
    {
        named_sync(Index::full_id(BASE_ID, i), kTotalThreads);
        return slot(i);
    }

    DMA_INLINE void release(int i, int total) const
    {
        if (i + STAGES < total) {
            named_arrive(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
    }

private:
    Element *storage_;
};

// Ring of double buffers.
template <int STAGES, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int BASE_ID>
class DoubleRing {
public:
    typedef double Element;
    typedef RingIndex<STAGES> Index;
    enum { kTotalThreads = DMA_THREADS + COMPUTE_THREADS, kPerThread = ELEMENTS / DMA_THREADS };

    DMA_INLINE DoubleRing(Element *storage) : storage_(storage) {}

    DMA_INLINE Element *slot(int i) const { return storage_ + Index::wrap(i) * ELEMENTS; }

    DMA_INLINE void fill(int i, const Element *src, int dma_tid) const
    {
        if (i >= STAGES) {
            named_sync(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
        Element *dst = slot(i);
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
            dst[k * DMA_THREADS + dma_tid] = src[k * DMA_THREADS + dma_tid];
        }
        named_arrive(Index::full_id(BASE_ID, i), kTotalThreads);
    }

    DMA_INLINE const Element *acquire(int i) const
    {
        named_sync(Index::full_id(BASE_ID, i), kTotalThreads);
        return slot(i);
    }

    DMA_INLINE void release(int i, int total) const
    {
        if (i + STAGES < total) {
            named_arrive(Index::empty_id(BASE_ID, i), kTotalThreads);
        }
    }

private:
    Element *storage_;
};

// ---------------------------------------------------------------------------------------
// Compute-side helpers: reductions over a staged buffer, by operator
// ---------------------------------------------------------------------------------------

struct SumOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a + b; }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(0); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct SumFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = SumOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = SumOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = SumOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = SumOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

struct ProductOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a * b; }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(1); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct ProductFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = ProductOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = ProductOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = ProductOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = ProductOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

struct MaxOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a > b ? a : b; }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(-3.0e38f); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct MaxFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = MaxOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = MaxOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = MaxOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = MaxOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

struct MinOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a < b ? a : b; }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(3.0e38f); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct MinFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = MinOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = MinOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = MinOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = MinOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

struct SumSquaresOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a + b * b; }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(0); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct SumSquaresFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = SumSquaresOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = SumSquaresOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = SumSquaresOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = SumSquaresOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

struct AbsSumOp {
    template <typename T>
    static DMA_HOST_DEVICE T apply(T a, T b) { return a + (b < 0 ? -b : b); }
    template <typename T>
    static DMA_HOST_DEVICE T identity() { return T(0); }
};

// Folds COUNT elements of a staged buffer, LANES lanes cooperating (strided by LANES).
template <typename T, int COUNT, int LANES>
struct AbsSumFold {
    static DMA_INLINE T partial(const T *buf, int lane)
    {
        T acc = AbsSumOp::template identity<T>();
        for (int i = lane; i < COUNT; i += LANES) {
            acc = AbsSumOp::apply(acc, buf[i]);
        }
        return acc;
    }

    template <int STRIDE>
    static DMA_INLINE T partial_strided(const T *buf, int lane)
    {
        T acc = AbsSumOp::template identity<T>();
#pragma unroll
        for (int i = 0; i < COUNT / LANES; ++i) {
            acc = AbsSumOp::apply(acc, buf[(i * LANES + lane) * STRIDE]);
        }
        return acc;
    }
};

// ---------------------------------------------------------------------------------------
// 7. Host-side launch descriptions
// ---------------------------------------------------------------------------------------

// What a launch of a warp-specialized kernel needs to know about its engines.
template <int DMA_WARPS, int COMPUTE_WARPS, int SHARED_BYTES>
struct LaunchShape {
    typedef RoleSplit<DMA_WARPS, COMPUTE_WARPS> Roles;
    enum { kThreads = Roles::kTotalThreads, kSharedBytes = SHARED_BYTES };

    static __host__ dim3 block() { return dim3(kThreads, 1, 1); }
    static __host__ dim3 grid(int items, int items_per_block)
    {
        return dim3((items + items_per_block - 1) / items_per_block, 1, 1);
    }
    static __host__ bool fits(int max_threads, int max_shared)
    {
        return kThreads <= max_threads && kSharedBytes <= max_shared;
    }
};

struct BarrierBudget {
    int first_id;
    int used;

    __host__ BarrierBudget() : first_id(1), used(0) {}
    __host__ int take(int n)
    {
        int id = first_id + used;
        used += n;
        return id;
    }
    __host__ bool valid() const { return first_id + used <= DMA_MAX_BARRIERS; }
};

// Launch description for 1 compute warp behind one DMA warp.
struct LaunchPlan1 {
    enum { kComputeWarps = 1, kThreads = (1 + 1) * DMA_WARP_SIZE, kBarrierCount = 1 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan1(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 2 compute warps behind one DMA warp.
struct LaunchPlan2 {
    enum { kComputeWarps = 2, kThreads = (2 + 1) * DMA_WARP_SIZE, kBarrierCount = 2 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan2(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 3 compute warps behind one DMA warp.
struct LaunchPlan3 {
    enum { kComputeWarps = 3, kThreads = (3 + 1) * DMA_WARP_SIZE, kBarrierCount = 3 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan3(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 4 compute warps behind one DMA warp.
struct LaunchPlan4 {
    enum { kComputeWarps = 4, kThreads = (4 + 1) * DMA_WARP_SIZE, kBarrierCount = 4 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan4(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 5 compute warps behind one DMA warp.
struct LaunchPlan5 {
    enum { kComputeWarps = 5, kThreads = (5 + 1) * DMA_WARP_SIZE, kBarrierCount = 5 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan5(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 6 compute warps behind one DMA warp.
struct LaunchPlan6 {
    enum { kComputeWarps = 6, kThreads = (6 + 1) * DMA_WARP_SIZE, kBarrierCount = 6 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan6(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 7 compute warps behind one DMA warp.
struct LaunchPlan7 {
    enum { kComputeWarps = 7, kThreads = (7 + 1) * DMA_WARP_SIZE, kBarrierCount = 7 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan7(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

// Launch description for 8 compute warps behind one DMA warp.
struct LaunchPlan8 {
    enum { kComputeWarps = 8, kThreads = (8 + 1) * DMA_WARP_SIZE, kBarrierCount = 8 * 32 + 32 };
    int items;
    int stages;
    __host__ LaunchPlan8(int n_items, int n_stages) : items(n_items), stages(n_stages) {}
    __host__ int blocks(int per_block) const { return (items + per_block - 1) / per_block; }
    __host__ int barriers_needed() const { return 2 * stages; }
    __host__ bool fits(const BarrierBudget &b) const { return b.first_id + barriers_needed() <= DMA_MAX_BARRIERS; }
};

} // namespace dmalib

#endif // DMA_LIB_H
