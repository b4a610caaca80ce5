//! The plain option structs `cli.rs` fills for a run: output format, colour, how many files
//! at once, and what `check` and `fix` are asked to do.

use crate::front::FrontOptions;
use crate::jobs::check::OracleChoice;
use crate::jobs::fix::Strategy;
use crate::synth::named::NamedStyle;
use std::path::PathBuf;
use std::time::Duration;

/// Report formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable diagnostics with source snippets.
    Text,
    /// One line per finding (`file:line:col: error[rule]: message`).
    Concise,
    /// GitHub Actions workflow commands (`::error file=...::message`): annotations on the PR.
    Github,
    /// JSON (docs/json.md).
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// When to colour text output.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Color {
    /// When writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How a multi-file run behaves (shared by `check` and `fix`).
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Use this config file for every input instead of discovering `autosync.yaml`.
    pub config: Option<PathBuf>,
    /// Read no config file.
    pub no_config: bool,
    /// Files in parallel (0: one per CPU).
    pub jobs: usize,
    /// Colour.
    pub color: Color,
    /// Only errors on standard error.
    pub quiet: bool,
    /// Notes, excluded files, the config used, per-kernel statistics.
    pub verbose: bool,
    /// Output format.
    pub format: Format,
    /// The path standard input (`-`) stands for: config lookup, includes and messages use it.
    pub stdin_filename: Option<PathBuf>,
    /// Where results are cached.
    pub cache: CacheChoice,
}

/// Where the result cache is (see `workflow::cached`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheChoice {
    /// No cache: every kernel is checked.
    Off,
    /// `.autosync_cache` in the project's root (the nearest directory above the current one
    /// with an `autosync.yaml` or a `.git`), else in the user's cache directory.
    Project,
    /// This directory.
    Dir(PathBuf),
}

/// `autosync check`.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Files and directories (`-` for standard input).
    pub paths: Vec<PathBuf>,
    /// What the kernels are (launch configuration, defines, ...), before the config file.
    pub front: FrontOptions,
    /// Which checker.
    pub oracle: OracleChoice,
    /// Benign races are races (not warnings).
    pub strict: bool,
    /// Solver budget per query (milliseconds of solver work).
    pub timeout_ms: u32,
    /// Wall-clock budget per kernel.
    pub kernel_timeout: Duration,
    /// Print per-kernel statistics (solver queries, queries settled without the solver, time).
    pub stats: bool,
    /// Run options.
    pub run: RunOptions,
}

/// What `fix` does with a fixed file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Rewrite it in place.
    Write,
    /// Print a unified diff (exit 1 when something would change).
    Diff,
    /// Exit 1 when something would change.
    Check,
    /// Print the patched file.
    Stdout,
}

/// `autosync fix`.
#[derive(Clone, Debug)]
pub struct FixRequest {
    /// Files and directories (`-` for standard input).
    pub paths: Vec<PathBuf>,
    /// What the kernels are, before the config file.
    pub front: FrontOptions,
    /// What to do with the result.
    pub mode: FixMode,
    /// Keep the original as FILE.orig.
    pub backup: bool,
    /// Print per-kernel statistics.
    pub stats: bool,
    /// Comment each inserted barrier.
    pub annotate: bool,
    /// Synthesis strategy.
    pub strategy: Strategy,
    /// Also remove the author's barriers when a verified cheaper placement exists.
    pub minimize: bool,
    /// Cost factor per enclosing loop (over the config's).
    pub cost_loop: Option<f64>,
    /// Cost factor per enclosing if (over the config's).
    pub cost_if: Option<f64>,
    /// Write every MaxSAT instance here.
    pub dump_wcnf: Option<PathBuf>,
    /// Solver budget per query.
    pub timeout_ms: u32,
    /// Also fix benign races.
    pub strict: bool,
    /// Named-barrier IDs synthesis must not use (over the config's).
    pub reserved_ids: Option<Vec<u32>>,
    /// Named-barrier style (over the config's).
    pub named_style: Option<NamedStyle>,
    /// Wall-clock budget per kernel.
    pub kernel_timeout: Duration,
    /// Run options.
    pub run: RunOptions,
}
