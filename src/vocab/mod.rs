//! The vocabulary shared by the outputs, the jobs, synthesis and the workflow, and owned by
//! none of them: the rules table, source texts and locations, the suppression filter as a
//! value, and the exit codes. A leaf: it imports nothing of this crate but its own parts.

pub mod defects;
pub mod exit;
pub mod filter;
pub mod paths;
pub mod rules;
pub mod texts;
