// autosync shim for <cooperative_groups.h>: declarations only. autosync models these by
// qualified name: block-level sync() is __syncthreads (with divergence checking), tile sync()
// is __syncwarp, thread_rank()/size()/group_index()/thread_index() are their exact values;
// grid-wide sync is not modelled (the kernel is inconclusive), never ignored.
#pragma once
#include "autosync_cuda.h"
namespace cooperative_groups {
class thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
};
class thread_block : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
};
template <unsigned int Size, typename ParentT = void> class thread_block_tile;
// A tile of a known parent converts to the parent-less tile, as in CUDA.
template <unsigned int Size> class thread_block_tile<Size, void> : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <typename T> __device__ T shfl(T var, int srcRank) const;
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <typename T> __device__ T shfl_xor(T var, unsigned int laneMask) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
};
template <unsigned int Size, typename ParentT> class thread_block_tile : public thread_block_tile<Size, void> {};
class coalesced_group : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
};
class grid_group {
public:
  __device__ void sync() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, typename ParentT> __device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tilesz);
template <typename GroupT> __device__ void sync(const GroupT &group);
// sync(g) as GPUVerify-dialect kernels spell it.
template <typename GroupT> __device__ void synchronize(const GroupT &group);
} // namespace cooperative_groups
