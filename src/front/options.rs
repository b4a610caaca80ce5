//! What the user told the front end about how to read a file: the kernel to read, macros,
//! include directories, template values, the launch configuration, how to run Clang.

use super::{clang, launch};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the user told us about how to read a file.
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// Only this kernel (by function name).
    pub kernel: Option<String>,
    /// `-D NAME[=VALUE]` macros.
    pub defines: Vec<(String, Option<String>)>,
    /// `--define NAME=VALUE`: values of kernel template parameters, by parameter name.
    pub template_values: BTreeMap<String, String>,
    /// `template_args:` of autosync.yaml: parameter values by kernel name (a `--define` of the
    /// same parameter wins).
    pub kernel_template_values: BTreeMap<String, BTreeMap<String, String>>,
    /// `-I` directories.
    pub include_dirs: Vec<PathBuf>,
    /// CLI launch configuration (wins over everything in the file).
    pub block_dim: Option<[u32; 3]>,
    /// CLI grid dimension.
    pub grid_dim: Option<[u32; 3]>,
    /// CLI `--warp-sync`.
    pub warp_sync: Option<u32>,
    /// `--param n=V`.
    pub params: BTreeMap<String, i64>,
    /// Launch settings from the config file (below the CLI, above the in-source header).
    pub file_launch: launch::FileLaunch,
    /// How to run Clang (executable, CUDA toolkit, architecture, standard).
    pub clang: clang::ClangOptions,
    /// Do not read flags from a `compile_commands.json`.
    pub no_compile_db: bool,
    /// `-p DIR`: the compilation database to read flags from (a build directory or the file),
    /// instead of searching above the file.
    pub compile_db: Option<PathBuf>,
    /// Functions declared free of memory effects and synchronization (`--assume-pure`).
    pub assume_pure: Vec<String>,
    /// `--index-wraparound`: no bound on array indices (full 64-bit wrap-around semantics).
    pub index_wraparound: bool,
}
