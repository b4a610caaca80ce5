//! What the front end hands on: one source file with its kernels in IR form, the notes a
//! verdict rests on, and how kernels are named.

use super::clang;
use super::error::FrontError;
use autosync_oracle::ir::{BarrierHelper, Kernel, SourceFile, Span};
use autosync_oracle::report::Hazard;
use std::path::PathBuf;

/// How a note that a verdict rests on begins (a call modelled without its body): such notes
/// are shown without `--verbose`.
pub const ASSUMPTION: &str = "assumed: ";

/// One source file with its kernels in IR form.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SourceUnit {
    /// The file as given.
    pub path: PathBuf,
    /// Original text of the main file (index 0) and of the included user files.
    pub texts: Vec<String>,
    /// The kernels found (in file order; a kernel template once per instantiation).
    pub kernels: Vec<Kernel>,
    /// Notes for the user (tolerated errors in host code, annotations, assumptions).
    pub notes: Vec<(Span, String)>,
    /// For each kernel (same order as `kernels`), the barrier helpers the file defines, with
    /// `used` set for those it calls.
    pub helpers: Vec<Vec<BarrierHelper>>,
    /// For each kernel (same order as `kernels`), the hazards its lowering found (warnings).
    #[serde(default)]
    pub hazards: Vec<Vec<Hazard>>,
    /// Where it was read: Clang, CUDA toolkit or shim, architecture (None for an AST no Clang
    /// run produced).
    pub env: Option<clang::Toolchain>,
    /// Kernels the front end could not lower (each inconclusive on its own; the others are
    /// still checked), in file order.
    pub unlowered: Vec<Unlowered>,
    /// The unit's files (main file first), as the kernels name them.
    pub files: Vec<SourceFile>,
    /// Every file the reading depended on besides the main file's text: what Clang read
    /// (headers, the prelude), Clang itself and the compilation database. A change to any of
    /// them makes a cached copy of the unit stale.
    pub inputs: Vec<PathBuf>,
}

/// Where lowered units are kept between runs (the workflow's result cache). `reading` names
/// everything a unit depends on but its text and [`SourceUnit::inputs`] (path, options,
/// toolchain, flags); an implementation must check that those inputs are unchanged.
pub trait UnitCache: Sync {
    /// The unit kept for this reading of `text`, if its inputs are unchanged.
    fn get(&self, reading: &str, text: &str) -> Option<SourceUnit>;
    /// Keeps `unit`, the result of this reading of `text`.
    fn put(&self, reading: &str, text: &str, unit: &SourceUnit);
}

/// A kernel the front end could not lower: a construct it does not model, or a value it
/// needs. That kernel is inconclusive; the file's other kernels get their verdicts.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Unlowered {
    /// The kernel's name as shown (`k` or `k<256>`).
    pub kernel: String,
    /// Where the kernel is defined.
    pub span: Span,
    /// Why it could not be lowered (located at the construct).
    pub error: FrontError,
}

impl SourceUnit {
    /// `path:line:col` for a span.
    pub fn loc(&self, span: Span) -> String {
        match self.kernels.first() {
            Some(k) => k.loc(span),
            None => self.path.display().to_string(),
        }
    }
}

/// The name of a kernel without template arguments (`reduce<256>` → `reduce`).
pub fn base_name(kernel: &str) -> &str {
    kernel.split('<').next().unwrap_or(kernel)
}
