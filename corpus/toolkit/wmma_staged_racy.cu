//--blockDim=64 --gridDim=2
// Racy twin of wmma_staged: the barrier between the cooperative staging of A and B and warp
// 0's load_matrix_sync is missing. Warp 1 stores half of each tile (elements 32-63, 96-127,
// ...) while warp 0's warp-collective loads read the whole 16x16 tile: two read-after-write
// races, sA's store vs the load of A and sB's store vs the load of B. The second barrier still
// orders store_matrix_sync before the final reads. Fix: one __syncthreads() after the staging
// loop.
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

#define THREADS 64
#define N 16

__global__ void wmma_staged_racy(const float *a, const float *b, float *c)
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
