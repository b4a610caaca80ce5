// autosync shim for <curand_kernel.h>: the device generators' states and functions.
// autosync models every generator call as a read and a write of the whole state through its
// pointer: threads sharing one state race; per-thread states do not. Values are opaque.
#pragma once
#include "autosync_cuda.h"
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandState_t curandState;
struct curandStatePhilox4_32_10 {
  uint4 ctr, output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
struct curandStateMRG32k3a {
  double s1[3], s2[3];
  int boxmuller_flag, boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
struct mtgp32_kernel_params;
struct curandStateMtgp32 {
  unsigned int s[1024];
  int offset, pIdx;
  struct mtgp32_kernel_params *k;
  int precise_double_flag;
};
typedef struct curandStateMtgp32 curandStateMtgp32_t;
typedef unsigned int curandDirectionVectors32_t[32];
struct curandStateSobol32 {
  unsigned int i, x, c;
  unsigned int direction_vectors[32];
};
typedef struct curandStateSobol32 curandStateSobol32_t;
template <class S> __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                                               unsigned long long offset, S *state);
template <class S> __device__ void curand_init(unsigned int *direction_vectors, unsigned int offset, S *state);
template <class S> __device__ unsigned int curand(S *state);
template <class S> __device__ float curand_uniform(S *state);
template <class S> __device__ double curand_uniform_double(S *state);
template <class S> __device__ float curand_normal(S *state);
template <class S> __device__ double curand_normal_double(S *state);
template <class S> __device__ float2 curand_normal2(S *state);
template <class S> __device__ double2 curand_normal2_double(S *state);
template <class S> __device__ float curand_log_normal(S *state, float mean, float stddev);
template <class S> __device__ double curand_log_normal_double(S *state, double mean, double stddev);
template <class S> __device__ unsigned int curand_poisson(S *state, double lambda);
template <class S> __device__ uint4 curand4(S *state);
template <class S> __device__ float4 curand_uniform4(S *state);
template <class S> __device__ float4 curand_normal4(S *state);
template <class S> __device__ void skipahead(unsigned long long n, S *state);
template <class S> __device__ void skipahead_sequence(unsigned long long n, S *state);
template <class S> __device__ float curand_mtgp32_single(S *state);
template <class S> __device__ unsigned int curand_mtgp32_specific(S *state, unsigned char index, unsigned char n);

// MTGP32 is the one generator whose state a whole block shares: cuRAND documents that every
// thread of a block of at most 256 threads calls it together, and that it synchronizes the
// block. autosync's model (not cuRAND's code) keeps what decides races: each thread reads words
// of the state's current window (its index plus 0, 1, `pos` and `pos` - 1, where `pos` is a
// constant of the parameter set, between 3 and 93 in every set cuRAND ships), writes its own
// word 351 words ahead, the block synchronizes, one thread advances the window's offset, and the
// block synchronizes again. Word indices are relative to the window's offset, which every thread
// of the block reads alike (the checkers take two reads of memory for unrelated values, so the
// absolute index would make every word collide); only code that indexes `state->s` itself,
// which cuRAND's API never asks for, would need it. The parameter tables `state->k` points to
// are constants the host built; their reads are left out. More than 256 threads overlap the
// windows: a race, as on a GPU.
__device__ inline unsigned int curand(curandStateMtgp32_t *state) {
  unsigned int d = blockDim.z * blockDim.y * blockDim.x;
  unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int off = state->offset;
  int pos = state->pIdx;
  __assume(pos >= 3 && pos <= 93);
  unsigned int r = state->s[t & 1023] ^ state->s[(t + 1) & 1023] ^ state->s[(t + pos) & 1023] ^
                   state->s[(t + pos - 1) & 1023];
  state->s[(t + 351) & 1023] = r;
  __syncthreads();
  if (t == 0)
    state->offset = (off + d) & 1023;
  __syncthreads();
  return r;
}
__device__ inline float curand_uniform(curandStateMtgp32_t *state) {
  return curand(state) * 2.3283064e-10f + 1.1641532e-10f;
}
__device__ inline float curand_normal(curandStateMtgp32_t *state) {
  return normcdfinvf(curand_uniform(state));
}
