//! Symbolic execution of one thread over the structured IR, producing Z3 terms.
//!
//! One walk visits every statement once. A loop is summarised by one "arbitrary iteration": the
//! variables it modifies are fresh at its head (and again at its exit), and its guard is part of
//! the control predicate of its body. For every access the walk records the thread's control
//! predicate (if conditions, loop guards, break/continue/return), the facts known there (assumes,
//! loop exit conditions) and the byte offset. Two walks (one per thread) share the names of
//! uniform values: parameters, geometry, and the head values of uniform loop variables of the
//! loops listed as shared (both threads in the same iteration of them).
//!
//! [`terms`] holds what a walk produces, [`walker`] the walk of statements and expressions,
//! [`loops`] the summarised iteration of a loop, [`locals`] thread-local arrays' stores and loads, [`numerals`] constant folding of bit-vectors, [`quotients`] signed division by a product
//! split into its factors.

mod locals;
mod loops;
mod numerals;
mod quotients;
mod terms;
mod walker;

pub(crate) use terms::{Detail, PointTerms, Product, SiteTerms, Stride, Val, Walk};
pub(crate) use walker::{walk, walk_with_params};
