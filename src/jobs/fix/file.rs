//! What `fix` gives for one file: the result, or why the file could not be processed.

use crate::front::{self, FrontError};
use crate::output::fixes::KernelFix;
use serde::Serialize;

/// What happened to one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileFix {
    /// The path.
    pub file: String,
    /// Per kernel.
    pub kernels: Vec<KernelFix>,
    /// Whether the file's text changes.
    pub changed: bool,
    /// The unified diff (empty when unchanged).
    pub diff: String,
    /// The patched text (when changed).
    #[serde(skip)]
    pub patched: Option<String>,
    /// The text as read (to detect changes on disk before writing).
    #[serde(skip)]
    pub original: String,
    /// The lowered input (texts and kernels, to locate what the reports name).
    #[serde(skip)]
    pub unit: Option<front::SourceUnit>,
}

/// Why a file could not be processed.
#[derive(Debug)]
pub enum FixError {
    /// Reading or lowering failed.
    Front(FrontError),
    /// Emission failed.
    Emit(String),
    /// The patched text did not verify (a bug; nothing is written).
    Verification(String),
}
