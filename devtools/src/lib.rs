//! Development-only code of autosync, used by its tests, benchmarks and fuzzers and never
//! shipped in the product crate: the random kernel generator ([`gen`]), generated benchmark
//! workloads ([`workload`], Singe-shaped kernels in [`singe`]), random async pipelines
//! ([`pipelines`]), the corpus manifest schema
//! ([`manifest`]), the module layering check ([`layering`]), function lengths ([`lengths`]), what
//! ARCHITECTURE.md claims ([`architecture`]), the CUDA toolkit the tests read kernels with
//! ([`toolkit`]) and the case counts of the randomized sweeps ([`sweep`]).

pub mod architecture;
pub mod gen;
pub mod layering;
pub mod lengths;
pub mod manifest;
pub mod pipelines;
pub mod singe;
pub mod sweep;
pub mod toolkit;
pub mod workload;
