//! Conflict queries: can two threads touch overlapping bytes of one array, at least one writing,
//! at two given accesses under a given iteration relation? Answered with Z3 on bit-vectors.
//!
//! [`engine`] asks the queries; [`bounds`] are the path bounds that narrow them, [`formulas`]
//! builds their parts and lemmas, [`layout`] splits offsets by their parameter strides, [`slice`] their slices, [`model`] reads witnesses from models.

mod bounds;
mod engine;
mod formulas;
mod layout;
mod model;
mod slice;

pub(crate) use bounds::{Bound, PathBounds};
pub use engine::QueryStat;
pub(crate) use engine::{Engine, Outcome, Pairing, Query, Settled};
pub(crate) use slice::slice;
