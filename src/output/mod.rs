//! What users and machines read: [`results`] holds the structured results of `check` and `fix`
//! (serialized as the JSON output), [`findings`] turns a checker report into findings (race
//! kinds in execution order, arrays as written, loops and witnesses in words), [`diag`]
//! renders text diagnostics, concise lines, GitHub annotations and `fix`'s per-barrier lines,
//! and [`sarif`] writes SARIF 2.1.0. Outputs only render; they decide nothing.

pub mod defect;
pub mod diag;
pub mod findings;
pub mod fixes;
pub mod results;
pub mod sarif;
