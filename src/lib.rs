//! autosync: synthesizes verified `__syncthreads()` and PTX named barriers for CUDA kernels.

pub mod front;
pub mod synth;
