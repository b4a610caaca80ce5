// autosync's CUDA shim: the declarations a kernel file needs from the CUDA toolkit, so that
// Clang can read it on a machine without one. Force-included before the user's file in
// device-only mode (`-nocudainc`). autosync models every function declared here by its
// qualified name (src/front/lower/library.rs); bodies given here are only for Clang's type
// checking and are never inlined. Anything a kernel calls that is neither modelled nor on the
// known-pure list makes the kernel inconclusive.
//
// With AUTOSYNC_LEAN defined, only the families named by AUTOSYNC_WANT_* are declared: autosync
// asks only for what the file's identifiers mention (a smaller AST dump), and reads the file
// again with everything if Clang then misses a declaration.
#ifndef AUTOSYNC_CUDA_SHIM_H
#define AUTOSYNC_CUDA_SHIM_H

#define __AUTOSYNC_SHIM__ 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#define CUDART_VERSION 12000
#define CUDA_VERSION 12000
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0

// ---- qualifiers ------------------------------------------------------------------------
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__ __attribute__((grid_constant))
#define __restrict__ __restrict
#define __builtin_align__(a) __align__(a)
#define __device_builtin__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __align__(n)
#define CUDARTAPI
#define __AS_DEV__ static __device__ __inline__ __attribute__((always_inline))
#define __AS_HD__ static __host__ __device__ __inline__ __attribute__((always_inline))

typedef __SIZE_TYPE__ size_t;
// What the C library headers nvcc's prelude includes give device code: NULL, and the short
// unsigned names of <sys/types.h>.
#include <stddef.h>
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;

// ---- vector types ------------------------------------------------------------------------------
// Plain structs with vector_types.h's layouts: 2- and 4-component vectors are aligned to their
// size (at most 16 bytes), 1- and 3-component ones to their component.
#define __AS_VEC_ALIGN(B, N) (N * sizeof(B) > 16 ? 16 : N * sizeof(B))
#define __AS_VECS(T, B)                                                                         \
  struct T##1 { B x; };                                                                        \
  struct __align__(__AS_VEC_ALIGN(B, 2)) T##2 { B x, y; };                                     \
  struct T##3 { B x, y, z; };                                                                  \
  struct __align__(__AS_VEC_ALIGN(B, 4)) T##4 { B x, y, z, w; };                               \
  typedef struct T##1 T##1; typedef struct T##2 T##2; typedef struct T##3 T##3;                \
  typedef struct T##4 T##4;
__AS_VECS(char, signed char)
__AS_VECS(uchar, unsigned char)
__AS_VECS(short, short)
__AS_VECS(ushort, unsigned short)
__AS_VECS(int, int)
__AS_VECS(uint, unsigned int)
__AS_VECS(long, long)
__AS_VECS(ulong, unsigned long)
__AS_VECS(longlong, long long)
__AS_VECS(ulonglong, unsigned long long)
__AS_VECS(float, float)
__AS_VECS(double, double)
#undef __AS_VECS
#undef __AS_VEC_ALIGN

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
typedef struct dim3 dim3;

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_MAKE)
// vector_functions.h: one constructor per vector type, taking its component type.
#define __AS_MAKE(T, B)                                                                        \
  __AS_HD__ T##1 make_##T##1(B x);                                                             \
  __AS_HD__ T##2 make_##T##2(B x, B y);                                                        \
  __AS_HD__ T##3 make_##T##3(B x, B y, B z);                                                   \
  __AS_HD__ T##4 make_##T##4(B x, B y, B z, B w);
__AS_MAKE(char, signed char)
__AS_MAKE(uchar, unsigned char)
__AS_MAKE(short, short)
__AS_MAKE(ushort, unsigned short)
__AS_MAKE(int, int)
__AS_MAKE(uint, unsigned int)
__AS_MAKE(long, long)
__AS_MAKE(ulong, unsigned long)
__AS_MAKE(longlong, long long)
__AS_MAKE(ulonglong, unsigned long long)
__AS_MAKE(float, float)
__AS_MAKE(double, double)
#undef __AS_MAKE

#endif // MAKE

// threadIdx, blockIdx, blockDim, gridDim, warpSize: Clang's own definitions.
#include "__clang_cuda_builtin_vars.h"

// ---- address-space conversions (autosync keeps the pointer they convert) -------------------------
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_local(const void *);
__device__ void *__cvta_shared_to_generic(size_t);
__device__ void *__cvta_global_to_generic(size_t);
__device__ unsigned int __isShared(const void *);
__device__ unsigned int __isGlobal(const void *);

// ---- synchronization -------------------------------------------------------------------------
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ void __nanosleep(unsigned int);
__device__ void __trap(void);
__device__ void __brkpt(void);

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_ATOMICS)
// ---- atomics -----------------------------------------------------------------------------
// Templates: one declaration per function, instantiated only for the types a file uses.
#define __AS_ATOMIC(NAME)                                                                      \
  template <typename T, typename V> __device__ T NAME(T *address, V val);                      \
  template <typename T, typename V> __device__ T NAME##_block(T *address, V val);              \
  template <typename T, typename V> __device__ T NAME##_system(T *address, V val);
__AS_ATOMIC(atomicAdd) __AS_ATOMIC(atomicSub) __AS_ATOMIC(atomicExch) __AS_ATOMIC(atomicMin)
__AS_ATOMIC(atomicMax) __AS_ATOMIC(atomicInc) __AS_ATOMIC(atomicDec) __AS_ATOMIC(atomicAnd)
__AS_ATOMIC(atomicOr) __AS_ATOMIC(atomicXor)
#undef __AS_ATOMIC
template <typename T, typename C, typename V> __device__ T atomicCAS(T *address, C compare, V val);
template <typename T, typename C, typename V> __device__ T atomicCAS_block(T *address, C compare, V val);
template <typename T, typename C, typename V> __device__ T atomicCAS_system(T *address, C compare, V val);

#endif // ATOMICS

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_WARP)
// ---- warp functions (no memory access) ----------------------------------------------------
template <typename T> __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);
template <typename T> __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <typename T> __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32);
template <typename T> __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32);
template <typename T> __device__ T __shfl(T var, int srcLane, int width = 32);
template <typename T> __device__ T __shfl_up(T var, unsigned int delta, int width = 32);
template <typename T> __device__ T __shfl_down(T var, unsigned int delta, int width = 32);
template <typename T> __device__ T __shfl_xor(T var, int laneMask, int width = 32);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot(int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __uni_sync(unsigned int mask, int predicate);
__device__ int __any(int predicate);
__device__ int __all(int predicate);
// The pre-Volta votes' C++ spellings (device_atomic_functions.h).
__device__ bool any(bool predicate);
__device__ bool all(bool predicate);
__device__ unsigned int __activemask(void);
__device__ unsigned int __match_any_sync(unsigned int mask, int value);
__device__ unsigned int __match_any_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __lanemask_lt(void);

#endif // WARP

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_INTRIN)
// ---- integer and conversion intrinsics (pure) --------------------------------------------------
__device__ int __mul24(int, int);
__device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned long long __brevll(unsigned long long);
__device__ unsigned int __byte_perm(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __vabs2(unsigned int);
__device__ unsigned int __vabs4(unsigned int);
__device__ unsigned int __vabsdiffs2(unsigned int, unsigned int);
__device__ unsigned int __vabsdiffs4(unsigned int, unsigned int);
__device__ unsigned int __vabsdiffu2(unsigned int, unsigned int);
__device__ unsigned int __vabsdiffu4(unsigned int, unsigned int);
__device__ unsigned int __vabsss2(unsigned int);
__device__ unsigned int __vabsss4(unsigned int);
__device__ unsigned int __vadd2(unsigned int, unsigned int);
__device__ unsigned int __vadd4(unsigned int, unsigned int);
__device__ unsigned int __vaddss2(unsigned int, unsigned int);
__device__ unsigned int __vaddss4(unsigned int, unsigned int);
__device__ unsigned int __vaddus2(unsigned int, unsigned int);
__device__ unsigned int __vaddus4(unsigned int, unsigned int);
__device__ unsigned int __vavgs2(unsigned int, unsigned int);
__device__ unsigned int __vavgs4(unsigned int, unsigned int);
__device__ unsigned int __vavgu2(unsigned int, unsigned int);
__device__ unsigned int __vavgu4(unsigned int, unsigned int);
__device__ unsigned int __vcmpeq2(unsigned int, unsigned int);
__device__ unsigned int __vcmpeq4(unsigned int, unsigned int);
__device__ unsigned int __vcmpges2(unsigned int, unsigned int);
__device__ unsigned int __vcmpges4(unsigned int, unsigned int);
__device__ unsigned int __vcmpgeu2(unsigned int, unsigned int);
__device__ unsigned int __vcmpgeu4(unsigned int, unsigned int);
__device__ unsigned int __vcmpgts2(unsigned int, unsigned int);
__device__ unsigned int __vcmpgts4(unsigned int, unsigned int);
__device__ unsigned int __vcmpgtu2(unsigned int, unsigned int);
__device__ unsigned int __vcmpgtu4(unsigned int, unsigned int);
__device__ unsigned int __vcmples2(unsigned int, unsigned int);
__device__ unsigned int __vcmples4(unsigned int, unsigned int);
__device__ unsigned int __vcmpleu2(unsigned int, unsigned int);
__device__ unsigned int __vcmpleu4(unsigned int, unsigned int);
__device__ unsigned int __vcmplts2(unsigned int, unsigned int);
__device__ unsigned int __vcmplts4(unsigned int, unsigned int);
__device__ unsigned int __vcmpltu2(unsigned int, unsigned int);
__device__ unsigned int __vcmpltu4(unsigned int, unsigned int);
__device__ unsigned int __vcmpne2(unsigned int, unsigned int);
__device__ unsigned int __vcmpne4(unsigned int, unsigned int);
__device__ unsigned int __vhaddu2(unsigned int, unsigned int);
__device__ unsigned int __vhaddu4(unsigned int, unsigned int);
__device__ unsigned int __vmaxs2(unsigned int, unsigned int);
__device__ unsigned int __vmaxs4(unsigned int, unsigned int);
__device__ unsigned int __vmaxu2(unsigned int, unsigned int);
__device__ unsigned int __vmaxu4(unsigned int, unsigned int);
__device__ unsigned int __vmins2(unsigned int, unsigned int);
__device__ unsigned int __vmins4(unsigned int, unsigned int);
__device__ unsigned int __vminu2(unsigned int, unsigned int);
__device__ unsigned int __vminu4(unsigned int, unsigned int);
__device__ unsigned int __vneg2(unsigned int);
__device__ unsigned int __vneg4(unsigned int);
__device__ unsigned int __vnegss2(unsigned int);
__device__ unsigned int __vnegss4(unsigned int);
__device__ unsigned int __vsads2(unsigned int, unsigned int);
__device__ unsigned int __vsads4(unsigned int, unsigned int);
__device__ unsigned int __vsadu2(unsigned int, unsigned int);
__device__ unsigned int __vsadu4(unsigned int, unsigned int);
__device__ unsigned int __vseteq2(unsigned int, unsigned int);
__device__ unsigned int __vseteq4(unsigned int, unsigned int);
__device__ unsigned int __vsetges2(unsigned int, unsigned int);
__device__ unsigned int __vsetges4(unsigned int, unsigned int);
__device__ unsigned int __vsetgeu2(unsigned int, unsigned int);
__device__ unsigned int __vsetgeu4(unsigned int, unsigned int);
__device__ unsigned int __vsetgts2(unsigned int, unsigned int);
__device__ unsigned int __vsetgts4(unsigned int, unsigned int);
__device__ unsigned int __vsetgtu2(unsigned int, unsigned int);
__device__ unsigned int __vsetgtu4(unsigned int, unsigned int);
__device__ unsigned int __vsetles2(unsigned int, unsigned int);
__device__ unsigned int __vsetles4(unsigned int, unsigned int);
__device__ unsigned int __vsetleu2(unsigned int, unsigned int);
__device__ unsigned int __vsetleu4(unsigned int, unsigned int);
__device__ unsigned int __vsetlts2(unsigned int, unsigned int);
__device__ unsigned int __vsetlts4(unsigned int, unsigned int);
__device__ unsigned int __vsetltu2(unsigned int, unsigned int);
__device__ unsigned int __vsetltu4(unsigned int, unsigned int);
__device__ unsigned int __vsetne2(unsigned int, unsigned int);
__device__ unsigned int __vsetne4(unsigned int, unsigned int);
__device__ unsigned int __vsub2(unsigned int, unsigned int);
__device__ unsigned int __vsub4(unsigned int, unsigned int);
__device__ unsigned int __vsubss2(unsigned int, unsigned int);
__device__ unsigned int __vsubss4(unsigned int, unsigned int);
__device__ unsigned int __vsubus2(unsigned int, unsigned int);
__device__ unsigned int __vsubus4(unsigned int, unsigned int);
__device__ unsigned int __funnelshift_l(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_r(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned int __uhadd(unsigned int, unsigned int);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ int __float2int_rd(float);
__device__ int __float2int_ru(float);
__device__ unsigned int __float2uint_rn(float);
__device__ unsigned int __float2uint_rz(float);
__device__ float __int2float_rn(int);
__device__ float __uint2float_rn(unsigned int);
__device__ int __float_as_int(float);
__device__ unsigned int __float_as_uint(float);
__device__ float __int_as_float(int);
__device__ float __uint_as_float(unsigned int);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ int __double2int_rn(double);
__device__ int __double2int_rz(double);
__device__ int __double2int_rd(double);
__device__ int __double2int_ru(double);
__device__ unsigned int __double2uint_rn(double);
__device__ unsigned int __double2uint_rz(double);
__device__ long long __double2ll_rn(double);
__device__ long long __double2ll_rz(double);
__device__ unsigned long long __double2ull_rn(double);
__device__ unsigned long long __double2ull_rz(double);
__device__ float __double2float_rn(double);
__device__ float __double2float_rz(double);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);
__device__ double __hiloint2double(int, int);
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned int);
__device__ double __ll2double_rn(long long);
__device__ double __ull2double_rn(unsigned long long);
__device__ long long __float2ll_rn(float);
__device__ long long __float2ll_rz(float);
__device__ unsigned long long __float2ull_rn(float);
__device__ unsigned long long __float2ull_rz(float);
__device__ float __ll2float_rn(long long);
__device__ float __ull2float_rn(unsigned long long);
__device__ long long clock64(void);
__device__ int clock(void);
__device__ unsigned long long __globaltimer(void);

#endif // INTRIN

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_LDG)
// ---- read-only loads ------------------------------------------------------------------------
template <typename T> __device__ T __ldg(const T *);

#endif // LDG

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_MATH)
// ---- math (pure) ------------------------------------------------------------------------------
#define __AS_F1(N) __AS_DEV__ float N##f(float); __AS_DEV__ double N(double); __AS_DEV__ float N(float);
#define __AS_F2(N) __AS_DEV__ float N##f(float, float); __AS_DEV__ double N(double, double); \
  __AS_DEV__ float N(float, float);
__AS_F1(sqrt) __AS_F1(rsqrt) __AS_F1(cbrt) __AS_F1(rcbrt) __AS_F1(exp) __AS_F1(exp2) __AS_F1(exp10)
__AS_F1(expm1) __AS_F1(log) __AS_F1(log2) __AS_F1(log10) __AS_F1(log1p) __AS_F1(sin) __AS_F1(cos)
__AS_F1(tan) __AS_F1(asin) __AS_F1(acos) __AS_F1(atan) __AS_F1(sinh) __AS_F1(cosh) __AS_F1(tanh)
__AS_F1(asinh) __AS_F1(acosh) __AS_F1(atanh) __AS_F1(fabs) __AS_F1(floor) __AS_F1(ceil) __AS_F1(round)
__AS_F1(trunc) __AS_F1(rint) __AS_F1(nearbyint) __AS_F1(erf) __AS_F1(erfc) __AS_F1(erfinv)
__AS_F1(erfcinv) __AS_F1(lgamma) __AS_F1(tgamma) __AS_F1(sinpi) __AS_F1(cospi) __AS_F1(normcdf)
__AS_F1(normcdfinv) __AS_F1(logb)
__AS_F2(pow) __AS_F2(fmin) __AS_F2(fmax) __AS_F2(fmod) __AS_F2(atan2) __AS_F2(hypot) __AS_F2(copysign)
__AS_F2(fdim) __AS_F2(remainder) __AS_F2(nextafter)
#undef __AS_F1
#undef __AS_F2
__AS_DEV__ float fmaf(float, float, float);
__AS_DEV__ double fma(double, double, double);
__AS_DEV__ float fma(float, float, float);
__AS_DEV__ void sincosf(float, float *, float *);
__AS_DEV__ void sincos(double, double *, double *);
__AS_DEV__ void sincospif(float, float *, float *);
__AS_DEV__ float ldexpf(float, int);
__AS_DEV__ double ldexp(double, int);
__AS_DEV__ float frexpf(float, int *);
__AS_DEV__ double frexp(double, int *);
__AS_DEV__ float frexp(float, int *);
__AS_DEV__ float modff(float, float *);
__AS_DEV__ double modf(double, double *);
__AS_DEV__ float modf(float, float *);
__AS_DEV__ float ldexp(float, int);
__AS_DEV__ float scalbnf(float, int);
__AS_DEV__ double scalbn(double, int);
__AS_DEV__ int ilogbf(float);
__AS_DEV__ int ilogb(double);
__AS_DEV__ long lroundf(float);
__AS_DEV__ long lround(double);
__AS_DEV__ long long llroundf(float);
__AS_DEV__ long long llround(double);
__AS_DEV__ long lrintf(float);
__AS_DEV__ long lrint(double);
__AS_DEV__ long long llrintf(float);
__AS_DEV__ long long llrint(double);
__AS_DEV__ int isnan(float);
__AS_DEV__ int isnan(double);
__AS_DEV__ int isinf(float);
__AS_DEV__ int isinf(double);
__AS_DEV__ int isfinite(float);
__AS_DEV__ int isfinite(double);
__AS_DEV__ int signbit(float);
__AS_DEV__ int signbit(double);
__AS_DEV__ int abs(int);
__AS_DEV__ long labs(long);
__AS_DEV__ long long llabs(long long);
__AS_DEV__ int min(int, int);
__AS_DEV__ unsigned int min(unsigned int, unsigned int);
__AS_DEV__ unsigned int min(int, unsigned int);
__AS_DEV__ unsigned int min(unsigned int, int);
__AS_DEV__ long long min(long long, long long);
__AS_DEV__ unsigned long long min(unsigned long long, unsigned long long);
__AS_DEV__ float min(float, float);
__AS_DEV__ double min(double, double);
__AS_DEV__ int max(int, int);
__AS_DEV__ unsigned int max(unsigned int, unsigned int);
__AS_DEV__ unsigned int max(int, unsigned int);
__AS_DEV__ unsigned int max(unsigned int, int);
__AS_DEV__ long long max(long long, long long);
__AS_DEV__ unsigned long long max(unsigned long long, unsigned long long);
__AS_DEV__ float max(float, float);
__AS_DEV__ double max(double, double);
__AS_DEV__ unsigned int umin(unsigned int, unsigned int);
__AS_DEV__ unsigned int umax(unsigned int, unsigned int);
__AS_DEV__ long long llmin(long long, long long);
__AS_DEV__ long long llmax(long long, long long);
__AS_DEV__ unsigned long long ullmin(unsigned long long, unsigned long long);
__AS_DEV__ unsigned long long ullmax(unsigned long long, unsigned long long);
__AS_DEV__ float __expf(float);
__AS_DEV__ float __exp10f(float);
__AS_DEV__ float __logf(float);
__AS_DEV__ float __log2f(float);
__AS_DEV__ float __log10f(float);
__AS_DEV__ float __sinf(float);
__AS_DEV__ float __cosf(float);
__AS_DEV__ float __tanf(float);
__AS_DEV__ void __sincosf(float, float *, float *);
__AS_DEV__ float __powf(float, float);
__AS_DEV__ float __fdividef(float, float);
__AS_DEV__ float __frcp_rn(float);
__AS_DEV__ float __fsqrt_rn(float);
__AS_DEV__ float __frsqrt_rn(float);
__AS_DEV__ float __saturatef(float);
__AS_DEV__ float __fadd_rn(float, float);
__AS_DEV__ float __fsub_rn(float, float);
__AS_DEV__ float __fmul_rn(float, float);
__AS_DEV__ float __fdiv_rn(float, float);
__AS_DEV__ float __fmaf_rn(float, float, float);
__AS_DEV__ double __dadd_rn(double, double);
__AS_DEV__ double __dmul_rn(double, double);
__AS_DEV__ double __fma_rn(double, double, double);

#endif // MATH

// ---- device-side memory ------------------------------------------------------------------------
extern "C" __device__ void *malloc(size_t);
extern "C" __device__ void free(void *);
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void *memcpy(void *, const void *, size_t);
extern "C" __device__ void *memset(void *, int, size_t);
extern "C" __host__ __device__ void __assertfail(const char *, const char *, unsigned int, const char *, size_t);

// The rounding modes of the conversion intrinsics (`device_types.h`).
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_TEX)
// ---- textures (read-only: fetches never race) ------------------------------------------------
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
                              cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
template <class T, int texType = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
};
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
template <class T, int D, enum cudaTextureReadMode M> __device__ T tex1Dfetch(texture<T, D, M>, int);
template <class T, int D, enum cudaTextureReadMode M> __device__ T tex1D(texture<T, D, M>, float);
template <class T, int D, enum cudaTextureReadMode M> __device__ T tex2D(texture<T, D, M>, float, float);
template <class T, int D, enum cudaTextureReadMode M> __device__ T tex3D(texture<T, D, M>, float, float, float);
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t, int);
template <class T> __device__ T tex1D(cudaTextureObject_t, float);
template <class T> __device__ T tex2D(cudaTextureObject_t, float, float);
template <class T> __device__ T tex3D(cudaTextureObject_t, float, float, float);
template <class T> __device__ T tex1DLayered(cudaTextureObject_t, float, int);
template <class T> __device__ T tex2DLayered(cudaTextureObject_t, float, float, int);
template <class T> __device__ T tex2DLod(cudaTextureObject_t, float, float, float);
template <class T> __device__ T texCubemap(cudaTextureObject_t, float, float, float);
template <class T> __device__ void tex1Dfetch(T *, cudaTextureObject_t, int);
template <class T> __device__ void tex2D(T *, cudaTextureObject_t, float, float);
// Surfaces are written: autosync does not model them (a kernel using one is inconclusive).
template <class T> __device__ void surf2Dwrite(T, cudaSurfaceObject_t, int, int);
template <class T> __device__ T surf2Dread(cudaSurfaceObject_t, int, int);
#endif // TEX

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_ANNOT)
#include "autosync_annotations.h"
#endif // ANNOT
#include "autosync_nvcc.h"

#if !defined(AUTOSYNC_LEAN) || defined(AUTOSYNC_WANT_HOST)
// ---- host runtime API (declarations only: host code must type-check) --------------------------
enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
                 cudaErrorInitializationError = 3, cudaErrorLaunchFailure = 4, cudaErrorInvalidConfiguration = 9,
                 cudaErrorInvalidDevice = 10, cudaErrorNoDevice = 100, cudaErrorNotReady = 600,
                 cudaErrorUnknown = 999 };
typedef enum cudaError cudaError_t;
typedef enum cudaError CUresult;
#define CUDA_SUCCESS cudaSuccess
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
struct CUstream_st;
typedef struct CUstream_st *cudaStream_t;
struct CUevent_st;
typedef struct CUevent_st *cudaEvent_t;
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory,
      computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, memoryClockRate, memoryBusWidth,
      l2CacheSize, maxThreadsPerMultiProcessor, sharedMemPerMultiprocessor, regsPerMultiprocessor,
      managedMemory, cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
};
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaHostAllocDefault 0x00
#define cudaEventDefault 0x00
#define cudaMemAttachGlobal 0x01
extern "C" {
__host__ cudaError_t cudaMalloc(void **devPtr, size_t size);
__host__ cudaError_t cudaMallocHost(void **ptr, size_t size);
__host__ cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
__host__ cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
__host__ cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
__host__ cudaError_t cudaFree(void *devPtr);
__host__ cudaError_t cudaFreeHost(void *ptr);
__host__ cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                     cudaStream_t stream = 0);
__host__ cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                  size_t height, enum cudaMemcpyKind kind);
__host__ cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
                                          enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__host__ cudaError_t cudaMemset(void *devPtr, int value, size_t count);
__host__ cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
__host__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaThreadSynchronize(void);
__host__ cudaError_t cudaDeviceReset(void);
__host__ cudaError_t cudaGetLastError(void);
// Programmatic dependent launch (sm_90): order this grid against the previous and next ones.
__device__ void cudaGridDependencySynchronize(void);
__device__ void cudaTriggerProgrammaticLaunchCompletion(void);
__host__ cudaError_t cudaPeekAtLastError(void);
__host__ const char *cudaGetErrorString(cudaError_t error);
__host__ const char *cudaGetErrorName(cudaError_t error);
__host__ cudaError_t cudaGetDeviceCount(int *count);
__host__ cudaError_t cudaGetDevice(int *device);
__host__ cudaError_t cudaSetDevice(int device);
__host__ cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
__host__ cudaError_t cudaEventCreate(cudaEvent_t *event);
__host__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__host__ cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
__host__ cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t event);
__host__ cudaError_t cudaStreamCreate(cudaStream_t *stream);
__host__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t stream);
__host__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
__host__ cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value);
__host__ int __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                         cudaStream_t stream = 0);
__host__ cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                       cudaStream_t stream = 0);
__host__ cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream);
}
template <class T> static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return cudaMalloc((void **)devPtr, size);
}
template <class T> static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                                          unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged((void **)devPtr, size, flags);
}
template <class T> static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src,
    size_t count, size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T> static __inline__ __host__ cudaError_t cudaFuncSetAttribute(T *func, int attr, int value) {
  return cudaFuncSetAttribute((const void *)func, attr, value);
}
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

#endif // HOST

#endif // AUTOSYNC_CUDA_SHIM_H
