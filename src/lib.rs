//! autosync: synthesizes verified `__syncthreads()` and PTX named barriers for CUDA kernels.

pub mod check;
pub mod cli;
pub mod config;
pub mod diag;
pub mod emit;
pub mod exit;
pub mod findings;
pub mod fix;
pub mod front;
pub mod gen;
pub mod manifest;
pub mod results;
pub mod sarif;
pub mod suppress;
pub mod synth;
pub mod walk;
pub mod workflow;
pub mod workload;
