//! The two user-facing jobs on one file: [`check`] (verification only: choose the checker per
//! kernel and run it) and [`fix`] (synthesize, emit, re-verify the patched text, and prepare
//! what to write). They take plain option structs and return results; running them over many
//! files, reading configuration and rendering is the workflow's.

pub mod check;
pub mod fix;
