//! autosync: synthesizes verified `__syncthreads()` and PTX named barriers for CUDA kernels.

pub mod cli;
pub mod emit;
pub mod front;
pub mod manifest;
