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
