//! Barrier synthesis: the optimisation layer that chooses where barriers go.

pub mod block;
pub mod maxsat;
pub mod named;
