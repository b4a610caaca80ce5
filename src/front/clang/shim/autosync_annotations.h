// autosync: GPUVerify's annotation vocabulary, for kernels written in the verifier's dialect.
// Included by the shim, and force-included when a real CUDA toolkit is read (it declares none
// of these). Bodiless on purpose: the lowering models each by name (lower/library.rs).
#ifndef AUTOSYNC_ANNOTATIONS_H
#define AUTOSYNC_ANNOTATIONS_H
#include <stddef.h>
// ---- GPUVerify annotations ----------------------------------------------------------------------
// __requires/__assume/__axiom are assumptions; __implies is exact; the others are noted.
#define __AS_ANNOT(N) __device__ void N(bool);
__AS_ANNOT(__requires) __AS_ANNOT(__assume) __AS_ANNOT(__axiom) __AS_ANNOT(__assert) __AS_ANNOT(__global_assert)
__AS_ANNOT(__invariant) __AS_ANNOT(__global_invariant) __AS_ANNOT(__ensures) __AS_ANNOT(__global_ensures)
__AS_ANNOT(__global_requires) __AS_ANNOT(__candidate_invariant) __AS_ANNOT(__function_wide_invariant)
#undef __AS_ANNOT
__device__ bool __implies(bool, bool);
__device__ bool __enabled(void);
__device__ bool __same_group(void);
__device__ bool __other_bool(bool);
template <typename T> __device__ T __other_int(T);
template <typename T> __device__ bool __read(const T *);
template <typename T> __device__ bool __write(const T *);
template <typename T> __device__ bool __no_read(const T *);
template <typename T> __device__ bool __no_write(const T *);
template <typename T> __device__ size_t __read_offset(const T *);
template <typename T> __device__ size_t __write_offset(const T *);
__device__ void __non_temporal_loads_begin(void);
__device__ void __non_temporal_loads_end(void);

#endif // AUTOSYNC_ANNOTATIONS_H
