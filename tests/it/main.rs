//! The integration tests, one test binary (`cargo test --release --test it`): one module per
//! area, so the product and Z3 are linked once rather than once per file. Run one area with a
//! filter on its module path, `cargo test --release --test it corpus_check::`.
//!
//! Randomized sweeps (generated kernels and pipelines, property tests) run a fraction of their
//! cases by default, which is what the merge gate runs; `AUTOSYNC_FULL_SWEEPS=1` runs them in
//! full, and `AUTOSYNC_GEN_CASES=F` runs F times the full counts (`common::sweep`).
//!
//! The tests marked `#[ignore]` need PyPI (`precommit::`, `sarif::`) or Neovim
//! (`server::neovim`), and `.ci/run` runs them with `--ignored`.

mod common;

mod annotations;
mod bad_input;
mod cache;
mod cli;
mod config;
mod corpus_check;
mod corpus_fix;
mod corpus_lowering;
mod deep_code;
mod differential;
mod fix_diffs;
mod front_end;
mod inline_ptx;
mod ir_snapshots;
mod layering;
mod library;
mod lowering_props;
mod named_fix;
mod named_helpers;
mod pipeline_differential;
mod pipeline_fix;
mod precommit;
mod random_differential;
mod recheck_reuse;
mod safe_write;
mod sarif;
mod server;
mod solver_limits;
mod suppress;
mod toolkit;
mod walk;
mod workflow;
