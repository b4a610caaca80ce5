//--blockDim=96 --gridDim=1
// CudaDMA-style warp specialization (see dma_warp_specialized.cu) with a defect: the
// derived class announces "buffer full" (bar.arrive 2) before it copies, to let the compute
// warps start early. The arrival orders nothing that follows it, so the copy races with
// the compute warps' reads of the tile. The fix is a new arrive/sync pair after the copy
// and before the reads (the author's barriers are kept).

template <int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class DmaChannel {
public:
    enum { TOTAL_THREADS = DMA_THREADS + COMPUTE_THREADS };
    static const int kEmptyId = EMPTY_ID;
    static const int kFullId = FULL_ID;

    __device__ DmaChannel(bool is_dma, int first_dma_thread)
        : dma_warp_(is_dma), dma_tid_(int(threadIdx.x) - first_dma_thread) {}

    __device__ bool owns_dma() const { return dma_warp_; }

    // Compute side: hand the buffer to the DMA warp, then wait until it is filled.
    __device__ void start_async_dma() const { arrive(kEmptyId); }
    __device__ void wait_for_dma_finish() const { sync(kFullId); }

    // DMA side: wait until the buffer is free, then announce it is filled.
    __device__ void wait_for_dma_start() const { sync(kEmptyId); }
    __device__ void finish_async_dma() const { arrive(kFullId); }

    // Barrier among the compute warps only.
    template <int ID>
    __device__ void compute_sync() const
    {
        asm volatile("bar.sync %0, %1;" :: "r"(ID), "r"(COMPUTE_THREADS) : "memory");
    }

protected:
    __device__ static void sync(int id)
    {
        asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(TOTAL_THREADS) : "memory");
    }
    __device__ static void arrive(int id)
    {
        asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(TOTAL_THREADS) : "memory");
    }

    // Strided copy of K elements per DMA thread.
    template <int K, typename T>
    __device__ void copy_strided(T *dst, const T *src) const
    {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            int i = k * DMA_THREADS + dma_tid_;
            dst[i] = src[i];
        }
    }

    bool dma_warp_;
    int dma_tid_;
};

template <typename T, int ELEMENTS, int DMA_THREADS, int COMPUTE_THREADS, int EMPTY_ID, int FULL_ID>
class SequentialDma : public DmaChannel<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> {
    typedef DmaChannel<DMA_THREADS, COMPUTE_THREADS, EMPTY_ID, FULL_ID> Base;

public:
    static const int kPerThread = ELEMENTS / DMA_THREADS;

    __device__ SequentialDma(bool is_dma, T *buffer, int first_dma_thread)
        : Base(is_dma, first_dma_thread), buffer_(buffer) {}

    // One full DMA step of the DMA warp.
    __device__ void execute_dma(const T *src) const
    {
        this->wait_for_dma_start();
        this->finish_async_dma();
        this->template copy_strided<kPerThread>(buffer_, src);
    }

private:
    T *buffer_;
};

#define TILE 64
#define EXCHANGE_BAR 3

__global__ void dma_arrive_early(const float *in, float *out, int iters)
{
    __shared__ float tile[TILE];
    __shared__ float partial[64];
    SequentialDma<float, TILE, 32, 64, 1, 2> dma(threadIdx.x < 32, tile, 0);
    if (dma.owns_dma()) {
        for (int it = 0; it < iters; ++it) {
            dma.execute_dma(in + it * TILE);
        }
    } else {
        int ctid = threadIdx.x - 32;
        dma.start_async_dma();
        for (int it = 0; it < iters; ++it) {
            dma.wait_for_dma_finish();
            float v = 0.5f * tile[ctid] + 0.25f * tile[(ctid + 1) % TILE];
            partial[ctid] = v;
            dma.compute_sync<EXCHANGE_BAR>();
            out[it * 64 + ctid] = v + partial[63 - ctid];
            if (it + 1 < iters) {
                dma.start_async_dma();
            }
        }
    }
}
