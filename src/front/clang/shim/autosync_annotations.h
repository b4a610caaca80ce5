// autosync: GPUVerify's annotation vocabulary, for kernels written in the verifier's dialect.
// Included by the shim, and force-included when a real CUDA toolkit is read (it declares none
// of these). The functions are bodiless on purpose: the lowering models each by name
// (lower/annotations.rs). Preconditions and assumptions are assumed; invariants, assertions,
// postconditions and access predicates are accepted and noted, never assumed; facts relating
// two threads (`__other_*`, `__uniform_*`, `__distinct_*`, `__all`) are noted, not used.
#ifndef AUTOSYNC_ANNOTATIONS_H
#define AUTOSYNC_ANNOTATIONS_H
#include <stddef.h>

// ---- contracts, assumptions, assertions, invariants ---------------------------------------------
#define __AS_ANNOT(N) __device__ void N(bool);
__AS_ANNOT(__requires) __AS_ANNOT(__global_requires) __AS_ANNOT(__assume) __AS_ANNOT(bugle_assume)
__AS_ANNOT(__ensures) __AS_ANNOT(__global_ensures)
__AS_ANNOT(__assert) __AS_ANNOT(__global_assert) __AS_ANNOT(__candidate_assert)
__AS_ANNOT(__candidate_global_assert)
__AS_ANNOT(__invariant) __AS_ANNOT(__global_invariant) __AS_ANNOT(__candidate_invariant)
__AS_ANNOT(__candidate_global_invariant) __AS_ANNOT(__function_wide_invariant)
__AS_ANNOT(__function_wide_candidate_invariant)
#undef __AS_ANNOT
// The `__unsafe_*` assertion forms read memory without logging it (for GPUVerify).
#define __unsafe_assert(X) __assert(X)
#define __unsafe_global_assert(X) __global_assert(X)
#define __unsafe_candidate_assert(X) __candidate_assert(X)
#define __unsafe_candidate_global_assert(X) __candidate_global_assert(X)
template <typename... T> __device__ void __barrier_invariant(bool, T...);
template <typename... T> __device__ void __binary_barrier_invariant(bool, T...);
__device__ void __non_temporal_loads_begin(void);
__device__ void __non_temporal_loads_end(void);

// An axiom holds for every thread of every kernel of the file. GPUVerify writes it at file
// scope; here it is a constant the lowering assumes at each kernel's entry (inside a function
// it is assumed where it stands).
#define __AS_AXIOM_NAME(E, N) const bool __autosync_axiom_##N __attribute__((unused)) = (E)
#define __AS_AXIOM_AT(E, N) __AS_AXIOM_NAME(E, N)
#define __axiom(E) __AS_AXIOM_AT(E, __COUNTER__)

// ---- predicates and values for use inside annotations ------------------------------------------
__device__ bool __implies(bool, bool);
__device__ bool __enabled(void);
__device__ bool __dominator_enabled(void);
__device__ int __return_val_int(void);
__device__ bool __return_val_bool(void);
__device__ void *__return_val_ptr(void);
__device__ void *__return_val_funptr(void);
#define __return_val_funptr(T) ((T)__return_val_funptr())
__device__ int __old_int(int);
__device__ bool __old_bool(bool);

// Access and pointer predicates (any object pointer, volatile too, converts to `const volatile void *`).
typedef int ptr_base_t;
__device__ bool __read(const volatile void *);
__device__ bool __write(const volatile void *);
__device__ size_t __read_offset_bytes(const volatile void *);
__device__ size_t __write_offset_bytes(const volatile void *);
__device__ size_t __read_offset(const volatile void *);
__device__ size_t __write_offset(const volatile void *);
__device__ ptr_base_t __ptr_base(const volatile void *);
__device__ size_t __ptr_offset_bytes(const volatile void *);
__device__ size_t __ptr_offset(const volatile void *);
__device__ void __reads_from(const volatile void *);
__device__ void __writes_to(const volatile void *);
__device__ void __requires_fresh_array(const volatile void *);
#define __no_read(p) (!__read(p))
#define __no_write(p) (!__write(p))
#define __read_implies(p, e) __implies(__read(p), e)
#define __write_implies(p, e) __implies(__write(p), e)
__device__ bool __atomic_has_taken_value(unsigned *, unsigned, unsigned);
__device__ void __array_snapshot(void *, void *);

// Facts relating the two threads GPUVerify reasons about.
template <typename T> __device__ T __other_int(T);
__device__ bool __other_bool(bool);
__device__ ptr_base_t __other_ptr_base(ptr_base_t);
#define __uniform_int(X) ((X) == __other_int(X))
#define __uniform_bool(X) ((X) == __other_bool(X))
#define __uniform_ptr_base(X) ((X) == __other_ptr_base(X))
#define __distinct_int(X) ((X) != __other_int(X))
#define __distinct_bool(X) ((X) != __other_bool(X))
#define __distinct_ptr_base(X) ((X) != __other_ptr_base(X))
// GPUVerify's `__all(X)` is spelled like CUDA's pre-Volta warp vote `__all`, which CUDA declares:
// in an assertion either reading is only noted.
#define __exclusive(X) (!((X) & __other_bool(X)))
#define __same_group                                                                              \
  (blockIdx.x == __other_int(blockIdx.x) & blockIdx.y == __other_int(blockIdx.y) &                \
   blockIdx.z == __other_int(blockIdx.z))

// Helpers and exact arithmetic.
#define __is_pow2(x) ((((x) & ((x) - 1)) == 0))
#define __mod_pow2(x, y) (((y) - 1) & (x))
template <typename T> __device__ T __ite(bool, T, T);
template <typename T> __device__ T __add(T, T);
#define __AS_NOOVFL(T)                                                                            \
  __device__ T __add_noovfl_##T(T, T);                                                            \
  __device__ unsigned T __add_noovfl_unsigned_##T(unsigned T, unsigned T);
__AS_NOOVFL(char) __AS_NOOVFL(short) __AS_NOOVFL(int) __AS_NOOVFL(long)
#undef __AS_NOOVFL

#endif // AUTOSYNC_ANNOTATIONS_H
