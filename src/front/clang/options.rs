//! What the user asked of Clang (executable, toolkit, architecture, flags), and why Clang
//! could not be run.

use super::toolkit::Choice;
use std::path::PathBuf;

/// How to run Clang for one file.
#[derive(Clone, Debug, Default)]
pub struct ClangOptions {
    /// `--clang PATH` / `AUTOSYNC_CLANG` / `clang:` in autosync.yaml.
    pub clang: Option<PathBuf>,
    /// `--cuda-path DIR` / `cuda_path:`: this CUDA toolkit.
    pub cuda_path: Option<PathBuf>,
    /// `--cuda-shim`: the built-in shim even when a toolkit is installed.
    pub shim: bool,
    /// `--arch sm_NN` (default `sm_80`).
    pub arch: Option<String>,
    /// Include directories (`-I`).
    pub include_dirs: Vec<PathBuf>,
    /// System include directories (`-isystem`).
    pub system_dirs: Vec<PathBuf>,
    /// Macros (`-D NAME[=VALUE]`).
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`.
    pub undefines: Vec<String>,
    /// `-std=`.
    pub std: Option<String>,
    /// Files to include first (`-include`).
    pub pre_includes: Vec<PathBuf>,
    /// Read the toolkit's CUDA prelude from its headers instead of a precompiled header
    /// (slower; the tests check that both read alike).
    pub plain_prelude: bool,
}

impl ClangOptions {
    /// What to read CUDA's headers from.
    pub fn toolkit_choice(&self) -> Choice {
        match (&self.cuda_path, self.shim) {
            (_, true) => Choice::Shim,
            (Some(p), false) => Choice::Path(p.clone()),
            (None, false) => Choice::Auto,
        }
    }

    /// The architecture of the device pass.
    pub fn arch(&self) -> &str {
        self.arch.as_deref().unwrap_or(DEFAULT_ARCH)
    }
}

/// Why Clang could not be run.
#[derive(Clone, Debug)]
pub struct ClangError {
    /// What went wrong.
    pub message: String,
    /// What to do.
    pub help: String,
}

/// Default GPU architecture: one every supported Clang (14–19) knows.
pub const DEFAULT_ARCH: &str = "sm_80";

/// Oldest supported Clang major version.
pub const MIN_VERSION: u32 = 14;
