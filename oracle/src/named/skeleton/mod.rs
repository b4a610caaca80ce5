//! Per-warp emulation of the synchronization skeleton.
//!
//! Each warp is walked with its 32 lanes' thread ids concrete. Statements that contain a
//! barrier are executed warp-wide: their conditions must be known and equal in every lane
//! (otherwise warp divergence, or an inconclusive verdict naming the missing value).
//! Statements without barriers run lane by lane; they may stay symbolic (unknown branch
//! conditions become path predicates, loops with unknown bounds are abstracted by havocking
//! the variables they assign). The result per warp is its sequence of barrier events and the
//! memory accesses of each segment between them.
//!
//! [`trace`] is what the emulation produces; [`warp`] runs a warp and its barrier statements,
//! [`lane`] the statements without barriers lane by lane, [`async_ops`] the async pipelines.

mod async_ops;
mod lane;
mod trace;
mod warp;
mod wgmma;

pub(crate) use trace::*;
pub(crate) use warp::emulate;
