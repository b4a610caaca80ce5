//--blockDim=64 --gridDim=2
// WMMA from the CUDA toolkit (<mma.h>, nvcuda::wmma): one 16x16x16 half-precision product per
// block, staged through shared memory. Both warps convert and store the A and B tiles
// (4 elements of each per thread), __syncthreads(), warp 0 alone runs load_matrix_sync from
// shared memory, mma_sync and store_matrix_sync of the float result back to shared memory,
// __syncthreads(), and all threads read the result transposed. Warp-collective loads and the
// store are warp-wide accesses whose per-lane element split is unspecified; the store's lanes
// write disjoint elements. Both barriers are needed: race-free.
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

#define THREADS 64
#define N 16

__global__ void wmma_staged(const float *a, const float *b, float *c)
{
    __shared__ __align__(32) half sA[N * N];
    __shared__ __align__(32) half sB[N * N];
    __shared__ __align__(32) float sC[N * N];

    int t = threadIdx.x;
    const float *ga = a + blockIdx.x * N * N;
    const float *gb = b + blockIdx.x * N * N;
    for (int i = t; i < N * N; i += THREADS) {
        sA[i] = __float2half(ga[i]);
        sB[i] = __float2half(gb[i]);
    }
    __syncthreads();
    if (t / 32 == 0) {
        wmma::fragment<wmma::matrix_a, N, N, N, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, N, N, N, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, N, N, N, float> fc;
        wmma::fill_fragment(fc, 0.0f);
        wmma::load_matrix_sync(fa, sA, N);
        wmma::load_matrix_sync(fb, sB, N);
        wmma::mma_sync(fc, fa, fb, fc);
        wmma::store_matrix_sync(sC, fc, N, wmma::mem_row_major);
    }
    __syncthreads();
    for (int i = t; i < N * N; i += THREADS) {
        c[blockIdx.x * N * N + i] = sC[(i % N) * N + i / N];
    }
}
