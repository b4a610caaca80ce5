//! Emission: turns barrier insertions at IR positions into exact text edits of the original
//! file, applies them, and shows them as a unified diff.
//!
//! The edits follow the file's own style (indentation unit, LF/CRLF) and never touch a byte
//! they do not need to: every edit only inserts new lines, breaks a line where code follows the
//! insertion point, or (for a brace-less body) adds braces around the body and reproduces the
//! body's bytes verbatim inside one edit.

mod diff;
mod edit;
mod plan;
mod text;
mod write;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_apply_write;
#[cfg(test)]
mod tests_placement;
#[cfg(test)]
mod tests_refused;

pub use diff::unified_diff;
pub use edit::{apply, removal, BarrierText, Edit, EmitError, Fix, Insertion, Placed};
pub use plan::plan;
pub use write::{write_atomic, write_atomic_failing, FailPoint};
