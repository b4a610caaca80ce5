//! autosync: synthesizes verified `__syncthreads()` and PTX named barriers for CUDA kernels.
//!
//! Imports run one way (ARCHITECTURE.md; checked by `tests/it/layering.rs`): [`cli`] →
//! [`workflow`] → [`jobs`] → ([`front`], [`synth`], [`emit`], [`output`]) → [`vocab`], and all
//! of them → the `autosync-oracle` crate.

pub mod cache;
pub mod cli;
pub mod emit;
pub mod front;
pub mod jobs;
pub mod output;
pub mod server;
pub mod synth;
pub mod vocab;
pub mod workflow;
