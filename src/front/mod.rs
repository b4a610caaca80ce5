//! The CUDA front end: preprocess, parse with tree-sitter-cuda, lower to the kernel IR.

pub mod preprocess;
