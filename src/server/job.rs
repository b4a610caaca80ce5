//! One version of one document to check in the background, and whether a newer version has
//! superseded it.

use super::offer::Offer;
use lsp_types::Url;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A snapshot of a document to check.
#[derive(Clone)]
pub struct Job {
    /// The document.
    pub uri: Url,
    /// Its path (what the results name, where its config and includes are looked up).
    pub path: PathBuf,
    /// The session's generation of this version.
    pub generation: u64,
    /// The text to check.
    pub text: String,
    /// Set when a newer version supersedes this one.
    pub cancel: Arc<AtomicBool>,
    /// The last finished analysis of the same text (a save of an unchanged file), if any.
    pub reuse: Option<Arc<Reuse>>,
}

/// What the last finished analysis of a text found: when a check of the same text finds the
/// same diagnostics (its files and kernels unchanged: the result cache answers it), its
/// verified code actions still hold and synthesis is not run again.
pub struct Reuse {
    /// Its diagnostics.
    pub diagnostics: Vec<lsp_types::Diagnostic>,
    /// Its code actions but the suppressions (which the check stage makes anew).
    pub offers: Vec<Offer>,
}

impl Job {
    /// Whether a newer version superseded this one (its results are not wanted).
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Marks it superseded.
    pub fn supersede(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}
