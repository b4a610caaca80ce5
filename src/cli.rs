//! Command-line interface.

use crate::config::{Config, ConfigCache};
use crate::front::{self, FrontError, FrontErrorKind, FrontOptions};
use crate::results::FileError;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit codes (DESIGN.md).
pub mod exit {
    /// Clean or fixed.
    pub const OK: u8 = 0;
    /// Defects found (`check`) or changes needed (`fix --check`).
    pub const DEFECTS: u8 = 1;
    /// Usage or input error.
    pub const INPUT: u8 = 2;
    /// Not fixable by barriers.
    pub const UNFIXABLE: u8 = 3;
    /// Inconclusive.
    pub const INCONCLUSIVE: u8 = 4;
}

#[derive(Parser, Debug)]
#[command(name = "autosync", version, about = "Synthesizes verified barriers for CUDA kernels")]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Verify kernels: races, barrier divergence, named-barrier defects, with witnesses.
    Check(CheckArgs),
    /// Insert the missing barriers (in place, or as a diff / check / stdout).
    Fix(FixArgs),
    /// Print the kernel IR with labels, spans and launch configuration.
    Ir(IrArgs),
}

/// `autosync fix` flags.
#[derive(Args, Debug)]
pub struct FixArgs {
    /// CUDA files or directories (searched for .cu/.cuh).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Print a unified diff and write nothing.
    #[arg(long, conflicts_with_all = ["check", "stdout"])]
    pub diff: bool,
    /// Write nothing; exit 1 if a fix would change a file.
    #[arg(long, conflicts_with = "stdout")]
    pub check: bool,
    /// Print the patched file to standard output and write nothing.
    #[arg(long)]
    pub stdout: bool,
    /// Print oracle calls, MaxSAT calls and time per kernel.
    #[arg(long)]
    pub stats: bool,
    /// Keep the original of each changed file as FILE.orig.
    #[arg(long)]
    pub backup: bool,
    /// Add a trailing comment to each inserted barrier naming the races it removes.
    #[arg(long)]
    pub annotate: bool,
    /// Synthesis strategy.
    #[arg(long, value_enum, default_value = "maxsat")]
    pub strategy: crate::fix::Strategy,
    /// Also remove barriers of your own when a verified cheaper placement exists.
    #[arg(long)]
    pub minimize: bool,
    /// Cost factor per enclosing loop [default: autosync.yaml's cost.loop, else 100].
    #[arg(long = "cost-loop")]
    pub cost_loop: Option<f64>,
    /// Cost factor per enclosing if [default: autosync.yaml's cost.if, else 0.5].
    #[arg(long = "cost-if")]
    pub cost_if: Option<f64>,
    /// Write each MaxSAT instance as WCNF into this directory.
    #[arg(long = "dump-wcnf")]
    pub dump_wcnf: Option<PathBuf>,
    /// Solver budget per query in milliseconds of solver work (deterministic, not wall clock).
    #[arg(long, default_value_t = 2000)]
    pub timeout: u32,
    /// Named-barrier IDs the tool must not use, e.g. `0-6` or `0-3,8` (ID 0 is never used).
    #[arg(long = "reserved-ids", value_parser = check_id_set)]
    pub reserved_ids: Option<String>,
    /// How inserted named barriers are written (default: CUTLASS if the kernel uses it, else
    /// the file's own barrier helper function or macro, else asm).
    #[arg(long = "named-style", value_enum)]
    pub named_style: Option<crate::synth::named::NamedStyle>,
    /// Wall-clock budget per kernel in seconds (a kernel that runs out is inconclusive).
    #[arg(long = "kernel-timeout", default_value = "60", value_parser = parse_seconds)]
    pub kernel_timeout: std::time::Duration,
    /// Output format for the report.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutFormat,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Report formats.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum OutFormat {
    /// Human-readable diagnostics with source snippets.
    Text,
    /// JSON (docs/json.md).
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// When to colour text output.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorChoice {
    /// When writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Which config file applies.
#[derive(Args, Debug, Clone)]
pub struct ConfigArgs {
    /// Use this config file for every input instead of looking for autosync.yaml.
    #[arg(long, conflicts_with = "no_config")]
    pub config: Option<PathBuf>,
    /// Do not read any autosync.yaml.
    #[arg(long = "no-config")]
    pub no_config: bool,
}

impl ConfigArgs {
    /// The config loader these flags ask for.
    pub fn cache(&self) -> ConfigCache {
        ConfigCache::new(self.config.clone(), self.no_config)
    }
}

/// Options of multi-file runs: config discovery, parallelism and verbosity.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Files processed in parallel (0: one per CPU).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
    /// Colour: auto, always or never.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Only errors on standard error: no progress bar, notes or summary.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print front-end notes, excluded files, the config used and per-kernel statistics.
    #[arg(short, long)]
    pub verbose: bool,
}

/// `autosync check` flags.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// CUDA files or directories (searched for .cu/.cuh).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Which checker: auto picks the named-barrier checker for kernels that use named barriers.
    #[arg(long, value_enum, default_value = "auto")]
    pub oracle: crate::check::OracleChoice,
    /// Solver budget per query in milliseconds of solver work (deterministic; an unanswered query is never "clean").
    #[arg(long, default_value_t = 2000)]
    pub timeout: u32,
    /// Wall-clock budget per kernel in seconds (a kernel that runs out is inconclusive).
    #[arg(long = "kernel-timeout", default_value = "60", value_parser = parse_seconds)]
    pub kernel_timeout: std::time::Duration,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: OutFormat,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options shared by every command that reads kernels.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Only this kernel.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Threads per block, e.g. 256 or [16,16].
    #[arg(long = "block-dim", value_parser = parse_dim_arg)]
    pub block_dim: Option<[u32; 3]>,
    /// Blocks per grid, e.g. 64 or [8,8].
    #[arg(long = "grid-dim", value_parser = parse_dim_arg)]
    pub grid_dim: Option<[u32; 3]>,
    /// Concrete value of a scalar kernel parameter: n=1024.
    #[arg(long = "param", value_parser = parse_param)]
    pub params: Vec<(String, i64)>,
    /// Preprocessor macro: NAME or NAME=VALUE (as Clang's -D).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Value of a kernel template parameter, for templates the file never instantiates:
    /// nIsPow2=0, T=float.
    #[arg(long = "define", value_name = "PARAM=VALUE", value_parser = parse_template_value)]
    pub template_values: Vec<(String, String)>,
    /// Include directory (as Clang's -I; quoted and angle includes).
    #[arg(short = 'I', long = "include")]
    pub include_dirs: Vec<PathBuf>,
    /// The Clang executable [default: AUTOSYNC_CLANG, autosync.yaml's `clang:`, then clang,
    /// clang-19 … clang-14 on PATH].
    #[arg(long = "clang", value_name = "PATH")]
    pub clang: Option<PathBuf>,
    /// Read CUDA headers from this toolkit instead of autosync's built-in CUDA shim.
    #[arg(long = "cuda-path", value_name = "DIR")]
    pub cuda_path: Option<PathBuf>,
    /// GPU architecture for the device pass (__CUDA_ARCH__) [default: sm_80].
    #[arg(long = "arch", value_name = "sm_NN", value_parser = parse_arch)]
    pub arch: Option<String>,
    /// C++ standard [default: c++17].
    #[arg(long = "std", value_name = "c++NN")]
    pub std: Option<String>,
    /// Do not read flags from a compile_commands.json found above the file.
    #[arg(long = "no-compile-commands")]
    pub no_compile_db: bool,
    /// Lanes of a warp of N threads run in lock step.
    #[arg(long = "warp-sync")]
    pub warp_sync: Option<u32>,
}

impl InputArgs {
    /// Front-end options from the flags.
    pub fn front_options(&self) -> FrontOptions {
        FrontOptions {
            kernel: self.kernel.clone(),
            defines: self
                .defines
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
            template_values: self.template_values.iter().cloned().collect(),
            kernel_template_values: Default::default(),
            include_dirs: self.include_dirs.clone(),
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            warp_sync: self.warp_sync,
            params: self.params.iter().cloned().collect(),
            file_launch: Default::default(),
            clang: front::clang::ClangOptions {
                clang: self.clang.clone(),
                cuda_path: self.cuda_path.clone(),
                arch: self.arch.clone(),
                std: self.std.clone(),
                ..Default::default()
            },
            no_compile_db: self.no_compile_db,
        }
    }

    /// Front-end options for `file`: the flags over the config file's settings.
    pub fn front_options_for(&self, cfg: Option<&Config>, file: &Path) -> FrontOptions {
        let mut o = self.front_options();
        let Some(cfg) = cfg else { return o };
        // CLI defines win over the config's for the same name.
        for (n, v) in &cfg.defines {
            if !o.defines.iter().any(|(m, _)| m == n) {
                o.defines.push((n.clone(), v.clone()));
            }
        }
        o.include_dirs.extend(cfg.include_dirs.iter().cloned());
        o.file_launch = cfg.launch_for(file);
        o.kernel_template_values = cfg.template_args_for(file);
        let c = &mut o.clang;
        c.clang = c.clang.take().or_else(|| cfg.clang.clone());
        c.cuda_path = c.cuda_path.take().or_else(|| cfg.cuda_path.clone());
        c.arch = c.arch.take().or_else(|| cfg.arch.clone());
        c.std = c.std.take().or_else(|| cfg.std.clone());
        o
    }
}

fn parse_dim_arg(s: &str) -> Result<[u32; 3], String> {
    front::launch::parse_dim(s)
        .ok_or_else(|| format!("`{s}` is not a dimension (use 256, [16,16] or [8,8,4]; each >= 1)"))
}

/// Validates a `--reserved-ids` set (parsed again when building the options).
fn check_id_set(s: &str) -> Result<String, String> {
    crate::synth::named::parse_id_set(s).map(|_| s.to_string())
}

/// Parses a positive number of seconds.
fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    s.parse::<f64>()
        .ok()
        .and_then(|v| std::time::Duration::try_from_secs_f64(v).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{s}` is not a positive number of seconds"))
}

fn parse_template_value(s: &str) -> Result<(String, String), String> {
    let (n, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` should be PARAM=VALUE"))?;
    let (n, v) = (n.trim(), v.trim());
    if n.is_empty() || v.is_empty() {
        return Err(format!("`{s}` should be PARAM=VALUE"));
    }
    Ok((n.to_string(), v.to_string()))
}

fn parse_arch(s: &str) -> Result<String, String> {
    let digits = s.strip_prefix("sm_").unwrap_or("");
    if digits.len() >= 2 && digits.trim_end_matches('a').chars().all(|c| c.is_ascii_digit()) {
        Ok(s.to_string())
    } else {
        Err(format!("`{s}` is not a GPU architecture (write sm_70, sm_80, ...)"))
    }
}

fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (n, v) = s.split_once('=').ok_or_else(|| format!("`{s}` should be NAME=VALUE"))?;
    let v = crate::front::lower::types::parse_int(v).ok_or_else(|| format!("`{v}` is not an integer"))?;
    Ok((n.trim().to_string(), v))
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum IrFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
struct IrArgs {
    /// The CUDA file.
    file: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    config: ConfigArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: IrFormat,
}

/// Turns a front-end error into a located record (`file:line:col`) with its exit code.
pub fn front_error_record(path: &Path, texts: Option<&[String]>, e: &FrontError) -> FileError {
    let (line, column) = if e.span.is_dummy() {
        (None, None)
    } else {
        let owned;
        let text = match texts.and_then(|t| t.get(e.span.file.0 as usize)) {
            Some(t) => t.as_str(),
            None => {
                owned = std::fs::read(path)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                owned.as_str()
            }
        };
        let f = autosync_oracle::ir::SourceFile::new(path.display().to_string(), text);
        let (l, c) = f.line_col(e.span.lo.min(text.len() as u32));
        (Some(l), Some(c))
    };
    let kind = match e.kind {
        FrontErrorKind::Input => "error",
        FrontErrorKind::Unsupported => "unsupported",
        FrontErrorKind::MissingValue => "needs a value",
    };
    FileError {
        file: path.display().to_string(),
        line,
        column,
        kind: kind.into(),
        message: e.message.clone(),
        help: e.help.clone(),
        exit_code: match e.kind {
            FrontErrorKind::Input => exit::INPUT,
            _ => exit::INCONCLUSIVE,
        },
    }
}

/// `file:line:col: kind: message` and the help line, as printed on standard error.
pub fn render_file_error(e: &FileError) -> String {
    let loc = match (e.line, e.column) {
        (Some(l), Some(c)) => format!("{}:{l}:{c}", e.file),
        _ => e.file.clone(),
    };
    let mut s = format!("{loc}: {}: {}", e.kind, e.message);
    if let Some(h) = &e.help {
        s.push_str(&format!("\n  help: {h}"));
    }
    s
}

/// Prints a front-end error as `file:line:col: error: ...` and returns its exit code.
pub fn report_front_error(path: &Path, texts: Option<&[String]>, e: &FrontError) -> u8 {
    let rec = front_error_record(path, texts, e);
    eprintln!("{}", render_file_error(&rec));
    rec.exit_code
}

fn run_ir(a: &IrArgs) -> u8 {
    let configs = a.config.cache();
    let cfg = match configs.for_file(&a.file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return exit::INPUT;
        }
    };
    let unit = match front::load(&a.file, &a.input.front_options_for(cfg.as_deref(), &a.file)) {
        Ok(u) => u,
        Err(e) => return report_front_error(&a.file, None, &e),
    };
    if unit.kernels.is_empty() {
        eprintln!("{}: error: no __global__ kernel in this file", a.file.display());
        return exit::INPUT;
    }
    match a.format {
        IrFormat::Text => {
            for k in &unit.kernels {
                print!("{}", autosync_oracle::print::kernel(k));
            }
            for (span, note) in &unit.notes {
                eprintln!("{}: note: {note}", unit.loc(*span));
            }
        }
        IrFormat::Json => match serde_json::to_string_pretty(&unit.kernels) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return exit::INPUT;
            }
        },
    }
    exit::OK
}

/// Expands directories into the `.cu`/`.cuh` files below them (sorted).
pub fn expand_inputs(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut stack = vec![p.clone()];
            let mut found = Vec::new();
            while let Some(d) = stack.pop() {
                let Ok(rd) = std::fs::read_dir(&d) else { continue };
                for e in rd.flatten() {
                    let q = e.path();
                    if q.is_dir() {
                        stack.push(q);
                    } else if q.extension().is_some_and(|x| x == "cu" || x == "cuh") {
                        found.push(q);
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// Runs the CLI; returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { exit::INPUT } else { exit::OK };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match &cli.cmd {
        Command::Ir(a) => run_ir(a),
        Command::Check(a) => crate::workflow::run_check(a),
        Command::Fix(a) => crate::workflow::run_fix(a),
    };
    ExitCode::from(code)
}
