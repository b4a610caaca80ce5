// autosync: what nvcc declares itself and Clang's CUDA mode does not. Force-included with the
// real toolkit (and by the shim). The toolkit's crt/device_functions.h holds the memory-order
// and scope constants, but Clang's CUDA wrapper skips that header; the `__nv_atomic_*`
// built-ins (CUDA 12.8 on, which CUTLASS calls when __CUDACC_VER_* says so) are nvcc's own.
// They are bodiless on purpose: the lowering models each by name (lower/nv_atomic.rs).
#ifndef AUTOSYNC_NVCC_H
#define AUTOSYNC_NVCC_H
#if !defined(__has_builtin) || !__has_builtin(__nv_atomic_load_n)
enum {
    __NV_ATOMIC_RELAXED,
    __NV_ATOMIC_CONSUME,
    __NV_ATOMIC_ACQUIRE,
    __NV_ATOMIC_RELEASE,
    __NV_ATOMIC_ACQ_REL,
    __NV_ATOMIC_SEQ_CST
};
enum {
    __NV_THREAD_SCOPE_THREAD,
    __NV_THREAD_SCOPE_BLOCK,
    __NV_THREAD_SCOPE_CLUSTER,
    __NV_THREAD_SCOPE_DEVICE,
    __NV_THREAD_SCOPE_SYSTEM
};
#define __AS_NV_RMW(N)                                                                     \
    template <class T> __device__ T __nv_atomic_fetch_##N(T *, T, int, int = __NV_THREAD_SCOPE_SYSTEM); \
    template <class T> __device__ void __nv_atomic_##N(T *, T, int, int = __NV_THREAD_SCOPE_SYSTEM);
__AS_NV_RMW(add) __AS_NV_RMW(sub) __AS_NV_RMW(and) __AS_NV_RMW(or) __AS_NV_RMW(xor)
__AS_NV_RMW(min) __AS_NV_RMW(max)
#undef __AS_NV_RMW
template <class T> __device__ T __nv_atomic_exchange_n(T *, T, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_exchange(T *, T *, T *, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T>
__device__ bool __nv_atomic_compare_exchange_n(T *, T *, T, bool, int, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T>
__device__ bool __nv_atomic_compare_exchange(T *, T *, T *, bool, int, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ T __nv_atomic_load_n(const T *, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_load(const T *, T *, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_store_n(T *, T, int, int = __NV_THREAD_SCOPE_SYSTEM);
template <class T> __device__ void __nv_atomic_store(T *, T *, int, int = __NV_THREAD_SCOPE_SYSTEM);
__device__ void __nv_atomic_thread_fence(int, int = __NV_THREAD_SCOPE_SYSTEM);
#endif
#endif
