//! Lowering from Clang's AST to the kernel IR.
//!
//! One [`Lowerer`] lowers one kernel (one instantiation of a kernel template). Clang has
//! already instantiated templates, resolved overloads and made every conversion explicit;
//! the lowering interprets the C++ abstractly: scalars become IR variables, pointers become
//! (array, byte offset) pairs, objects become maps from fields to bindings, and calls of
//! functions with a body are inlined. Calls into system headers are modelled by name
//! (`library.rs`), or the kernel is inconclusive. Expressions are lowered to pure IR
//! expressions plus the memory operations they perform, collected into the current source
//! statement's `Basic` statement.

mod annotations;
mod asm;
mod async_ops;
pub mod barrier_helpers;
mod butterfly;
mod call;
mod convert;
mod expr;
mod external;
mod funcptr;
pub mod kernels;
pub(crate) mod library;
mod lowerer;
mod make;
mod nv_atomic;
mod ptr_arrays;
mod ptx;
mod returns;
pub mod source;
mod stmt;
pub mod types;
mod unroll;
mod values;
pub mod vector_types;
mod wmma;

pub use lowerer::{LowerOptions, Lowerer};
