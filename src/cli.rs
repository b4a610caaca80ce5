//! Command-line interface: the only module that knows clap. It parses the flags into the plain
//! option structs of `workflow.rs` and runs them.

use crate::front::{self, FrontOptions};
use crate::jobs::check::OracleChoice;
use crate::jobs::fix::Strategy;
use crate::server::{self, ServerOptions};
use crate::synth::named::NamedStyle;
use crate::vocab::exit;
use crate::workflow::config::{front_options_for, ConfigCache};
use crate::workflow::{self, CacheChoice, CheckOptions, Color, FixMode, FixRequest, Format, RunOptions};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

const EXIT_CODES: &str = "\
Exit codes:
  0  clean, or fixed
  1  defects found (check), or changes needed (fix --check, fix --diff)
  2  usage or input error (bad flag, missing or unreadable file, parse error, bad config)
  3  not fixable by barriers (fix)
  4  inconclusive (unsupported construct, missing concrete value, solver budget)";

const CHECK_EXAMPLES: &str = "\
Examples:
  autosync check kernel.cu                      races, divergence, named-barrier defects
  autosync check --block-dim 256 --param n=1024 src/
  autosync check --format github .              annotations in a GitHub Actions job
  autosync check - --stdin-filename k.cu < k.cu  from an editor

Suppress a false alarm with `// autosync: ignore[race]` on either access's line,
`// autosync: ignore-kernel[race]` above a kernel, or `ignore:` in autosync.yaml.";

const FIX_EXAMPLES: &str = "\
Examples:
  autosync fix kernel.cu                        insert the missing barriers in place
  autosync fix --diff . | git apply --check     review the change as a patch (exit 1 if any)
  autosync fix --check src/                     CI: exit 1 if a file would change
  autosync fix - --stdin-filename k.cu < k.cu   print the fixed text (editors)

Suppressed races (`// autosync: ignore[race]`) get no barrier.";

const SERVER_HELP: &str = "\
Editors start it; see docs/editor.md for Neovim, VS Code, Helix and Emacs.
Each file is checked with its autosync.yaml and compile_commands.json, as `check` does;
the flags below apply to every file.

Exit codes:
  0  after the editor's shutdown and exit
  1  exit (or end of input) without shutdown
  2  the log file cannot be written";

#[derive(Parser, Debug)]
#[command(
    name = "autosync",
    version,
    about = "Finds data races in CUDA kernels and inserts the fewest, cheapest verified barriers",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    cmd: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Verify kernels: races, barrier divergence, named-barrier defects, with witnesses.
    #[command(after_help = format!("{CHECK_EXAMPLES}\n\n{EXIT_CODES}"))]
    Check(CheckArgs),
    /// Insert the missing barriers (in place, or as a diff / check / stdout).
    #[command(after_help = format!("{FIX_EXAMPLES}\n\n{EXIT_CODES}"))]
    Fix(FixArgs),
    /// Print the kernel IR with labels, spans and launch configuration.
    #[command(after_help = EXIT_CODES)]
    Ir(IrArgs),
    /// Language server for editors (LSP on standard input/output): diagnostics on open and
    /// save, verified barrier insertions as code actions.
    #[command(after_help = SERVER_HELP)]
    Server(ServerArgs),
}

/// Report formats.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum FormatArg {
    /// Diagnostics with source snippets.
    Text,
    /// One line per finding: file:line:col: error[rule]: message.
    Concise,
    /// GitHub Actions annotations (::error file=...,line=...::message).
    Github,
    /// JSON (docs/json.md).
    Json,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Text => Format::Text,
            FormatArg::Concise => Format::Concise,
            FormatArg::Github => Format::Github,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
        }
    }
}

/// When to colour text output.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum ColorArg {
    /// When writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// Which checker to run.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum OracleArg {
    /// Named barriers if the kernel uses any, SDV otherwise.
    Auto,
    /// The SDV checker (block-wide barriers).
    Sdv,
    /// The named-barrier checker.
    Named,
}

/// Synthesis strategy.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum StrategyArg {
    /// Weighted MaxSAT over the label tree, refined by the oracle.
    Maxsat,
    /// The AutoSync paper's baseline: barriers everywhere, then remove one at a time.
    Naive,
}

/// How inserted named barriers are written.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum NamedStyleArg {
    /// Inline PTX `asm volatile("bar.sync ...")`.
    Asm,
    /// CUTLASS-style `NamedBarrier::sync(N, ID)`.
    Cutlass,
    /// The file's own barrier helper function or macro.
    Macro,
}

/// Which config file applies.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Configuration")]
struct ConfigArgs {
    /// Use this config file for every input instead of looking for autosync.yaml.
    #[arg(long, conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Do not read any autosync.yaml.
    #[arg(long = "no-config")]
    no_config: bool,
}

/// Options of multi-file runs: config discovery, parallelism, output and verbosity.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Output and run")]
struct RunArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FormatArg,
    /// Colour: auto, always or never.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorArg,
    /// Only errors on standard error: no progress bar, notes or summary.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print front-end notes, excluded files, the config used and per-kernel statistics.
    #[arg(short, long)]
    verbose: bool,
    /// Threads: files in parallel, and the two query lanes of each check (0: one per CPU).
    #[arg(short = 'j', long, default_value_t = 0)]
    jobs: usize,
    /// The path standard input (`-`) stands for: config lookup, includes and messages use it.
    #[arg(long = "stdin-filename", value_name = "PATH")]
    stdin_filename: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Where results are cached.
#[derive(Args, Debug, Clone)]
struct CacheArgs {
    /// Check every kernel again: neither read nor write the result cache (overrides --cache-dir).
    #[arg(long = "no-cache")]
    no_cache: bool,
    /// Keep the result cache in this directory (default: .autosync_cache in the project's root).
    #[arg(long = "cache-dir", value_name = "DIR", env = "AUTOSYNC_CACHE_DIR")]
    cache_dir: Option<PathBuf>,
}

impl CacheArgs {
    fn choice(&self) -> CacheChoice {
        match (&self.cache_dir, self.no_cache) {
            (_, true) => CacheChoice::Off,
            (Some(d), false) => CacheChoice::Dir(d.clone()),
            (None, false) => CacheChoice::Project,
        }
    }
}

impl RunArgs {
    fn options(&self) -> RunOptions {
        RunOptions {
            config: self.config.config.clone(),
            no_config: self.config.no_config,
            jobs: self.jobs,
            color: match self.color {
                ColorArg::Auto => Color::Auto,
                ColorArg::Always => Color::Always,
                ColorArg::Never => Color::Never,
            },
            quiet: self.quiet,
            verbose: self.verbose,
            format: self.format.into(),
            stdin_filename: self.stdin_filename.clone(),
            cache: self.cache.choice(),
        }
    }
}

/// Solver limits.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Solver limits")]
struct LimitArgs {
    /// Solver budget per query in milliseconds of solver work (deterministic, not wall clock; an unanswered query is never "clean").
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    timeout: u32,
    /// Wall-clock budget per kernel in seconds (a kernel that runs out is inconclusive).
    #[arg(long = "kernel-timeout", default_value = "60", value_parser = parse_seconds, value_name = "SECONDS")]
    kernel_timeout: std::time::Duration,
    /// Treat benign races (write-write races where every thread stores the same value) as
    /// races: defects for check, fixed by fix.
    #[arg(long, help_heading = "Findings")]
    strict: bool,
}

/// `autosync fix` flags.
#[derive(Args, Debug)]
struct FixArgs {
    /// CUDA files or directories (searched for .cu/.cuh, honouring .gitignore); `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    files: Vec<PathBuf>,
    /// Print a unified diff and write nothing (exit 1 when a file would change).
    #[arg(long, conflicts_with_all = ["check", "stdout"], help_heading = "What to do")]
    diff: bool,
    /// Write nothing; exit 1 if a fix would change a file.
    #[arg(long, conflicts_with = "stdout", help_heading = "What to do")]
    check: bool,
    /// Print the patched file to standard output and write nothing.
    #[arg(long, help_heading = "What to do")]
    stdout: bool,
    /// Keep the original of each changed file as FILE.orig.
    #[arg(long, help_heading = "What to do")]
    backup: bool,
    /// Add a short comment to each inserted barrier naming the races it orders.
    #[arg(long, help_heading = "What to do")]
    annotate: bool,
    /// Also remove barriers of your own when a verified cheaper placement exists.
    #[arg(long, help_heading = "What to do")]
    minimize: bool,
    /// Print oracle calls, MaxSAT calls and time per kernel.
    #[arg(long, help_heading = "What to do")]
    stats: bool,
    #[command(flatten)]
    input: InputArgs,
    /// Synthesis strategy.
    #[arg(long, value_enum, default_value = "maxsat", help_heading = "Synthesis")]
    strategy: StrategyArg,
    /// Cost factor per enclosing loop [default: autosync.yaml's cost.loop, else 100].
    #[arg(long = "cost-loop", help_heading = "Synthesis")]
    cost_loop: Option<f64>,
    /// Cost factor per enclosing if [default: autosync.yaml's cost.if, else 0.5].
    #[arg(long = "cost-if", help_heading = "Synthesis")]
    cost_if: Option<f64>,
    /// Named-barrier IDs the tool must not use, e.g. `0-6` or `0-3,8` (ID 0 is never used).
    #[arg(long = "reserved-ids", value_parser = parse_id_set, help_heading = "Synthesis", value_name = "IDS")]
    reserved_ids: Option<IdSet>,
    /// How inserted named barriers are written (default: CUTLASS if the kernel uses it, else
    /// the file's own barrier helper function or macro, else asm).
    #[arg(long = "named-style", value_enum, help_heading = "Synthesis")]
    named_style: Option<NamedStyleArg>,
    /// Write each MaxSAT instance as WCNF into this directory.
    #[arg(long = "dump-wcnf", help_heading = "Synthesis", value_name = "DIR")]
    dump_wcnf: Option<PathBuf>,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    run: RunArgs,
}

/// `autosync check` flags.
#[derive(Args, Debug)]
struct CheckArgs {
    /// CUDA files or directories (searched for .cu/.cuh, honouring .gitignore); `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    files: Vec<PathBuf>,
    /// Which checker: auto picks the named-barrier checker for kernels that use named barriers.
    #[arg(long, value_enum, default_value = "auto")]
    oracle: OracleArg,
    /// Print solver queries, queries settled without the solver and time per kernel.
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    run: RunArgs,
}

/// Options shared by every command that reads kernels.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Kernel input")]
struct InputArgs {
    /// Only this kernel.
    #[arg(long)]
    kernel: Option<String>,
    /// Threads per block, e.g. 256 or [16,16].
    #[arg(long = "block-dim", value_parser = parse_dim_arg, value_name = "DIM")]
    block_dim: Option<[u32; 3]>,
    /// Blocks per grid, e.g. 64 or [8,8].
    #[arg(long = "grid-dim", value_parser = parse_dim_arg, value_name = "DIM")]
    grid_dim: Option<[u32; 3]>,
    /// Concrete value of a scalar kernel parameter: n=1024.
    #[arg(long = "param", value_parser = parse_param, value_name = "NAME=VALUE")]
    params: Vec<(String, i64)>,
    /// Preprocessor macro: NAME or NAME=VALUE (as Clang's -D).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Value of a kernel template parameter, for templates the file never instantiates:
    /// nIsPow2=0, T=float.
    #[arg(long = "define", value_name = "PARAM=VALUE", value_parser = parse_template_value)]
    template_values: Vec<(String, String)>,
    /// Include directory (as Clang's -I; quoted and angle includes).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// The Clang executable [default: AUTOSYNC_CLANG, autosync.yaml's `clang:`, then the newest
    /// of clang-19 … clang-14 and clang on PATH that reads the CUDA toolkit].
    #[arg(long = "clang", value_name = "PATH")]
    clang: Option<PathBuf>,
    /// The CUDA toolkit to read headers from: a root with include/cuda_runtime.h, or a Python
    /// site-packages directory with the NVIDIA wheels [default: CUDA_PATH, CUDA_HOME, nvcc on
    /// PATH, /usr/local/cuda, the wheels of the active Python environment, else the built-in
    /// CUDA shim].
    #[arg(long = "cuda-path", value_name = "DIR", conflicts_with = "cuda_shim")]
    cuda_path: Option<PathBuf>,
    /// Read autosync's built-in CUDA declarations even when a toolkit is installed.
    #[arg(long = "cuda-shim")]
    cuda_shim: bool,
    /// GPU architecture for the device pass (__CUDA_ARCH__) [default: the compile_commands.json entry's, else sm_80].
    #[arg(long = "arch", value_name = "sm_NN", value_parser = parse_arch)]
    arch: Option<String>,
    /// C++ standard [default: c++17].
    #[arg(long = "std", value_name = "c++NN")]
    std: Option<String>,
    /// Do not read flags from a compile_commands.json.
    #[arg(long = "no-compile-commands", conflicts_with = "compile_db")]
    no_compile_db: bool,
    /// Read the build's flags from this compile_commands.json (or the build directory holding
    /// it) instead of searching each folder above the file and its build/ [like clang-tidy -p].
    #[arg(short = 'p', long = "compile-commands", value_name = "DIR")]
    compile_db: Option<PathBuf>,
    /// Treat calls of this function (no body autosync can see) as free of memory accesses and
    /// synchronization (repeatable).
    #[arg(long = "assume-pure", value_name = "NAME")]
    assume_pure: Vec<String>,
    /// Lanes of a warp of N threads run in lock step.
    #[arg(long = "warp-sync", value_name = "N")]
    warp_sync: Option<u32>,
    /// Drop the assumption that array indices stay below 2^40 elements: index arithmetic
    /// that wraps around 64 bits is then a possible witness too.
    #[arg(long = "index-wraparound")]
    index_wraparound: bool,
}

impl InputArgs {
    /// Front-end options from the flags.
    fn front_options(&self) -> FrontOptions {
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
                shim: self.cuda_shim,
                arch: self.arch.clone(),
                std: self.std.clone(),
                ..Default::default()
            },
            no_compile_db: self.no_compile_db,
            compile_db: self.compile_db.clone(),
            assume_pure: self.assume_pure.clone(),
            index_wraparound: self.index_wraparound,
        }
    }
}

fn parse_dim_arg(s: &str) -> Result<[u32; 3], String> {
    front::launch::parse_dim(s)
        .ok_or_else(|| format!("`{s}` is not a dimension (use 256, [16,16] or [8,8,4]; each >= 1)"))
}

/// A parsed `--reserved-ids` set (a newtype: clap would read a bare `Vec` as repeated values).
#[derive(Clone, Debug, PartialEq, Eq)]
struct IdSet(Vec<u32>);

fn parse_id_set(s: &str) -> Result<IdSet, String> {
    crate::synth::named::parse_id_set(s).map(IdSet)
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

/// `autosync server` flags.
#[derive(Args, Debug)]
struct ServerArgs {
    /// Write a debug log (messages received and sent, checks and their times) to FILE.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    config: ConfigArgs,
}

fn server_options(a: &ServerArgs) -> ServerOptions {
    let run = RunOptions {
        config: a.config.config.clone(),
        no_config: a.config.no_config,
        jobs: 0,
        color: Color::Never,
        quiet: true,
        verbose: false,
        format: Format::Json,
        stdin_filename: None,
        cache: a.cache.choice(),
    };
    let check = CheckOptions {
        paths: vec![],
        front: a.input.front_options(),
        oracle: OracleChoice::Auto,
        timeout_ms: a.limits.timeout,
        strict: a.limits.strict,
        kernel_timeout: a.limits.kernel_timeout,
        stats: false,
        run: run.clone(),
    };
    let fix = FixRequest {
        paths: vec![],
        front: a.input.front_options(),
        mode: FixMode::Stdout,
        backup: false,
        stats: false,
        annotate: false,
        strategy: Strategy::Maxsat,
        minimize: false,
        cost_loop: None,
        cost_if: None,
        dump_wcnf: None,
        timeout_ms: a.limits.timeout,
        strict: a.limits.strict,
        reserved_ids: None,
        named_style: None,
        kernel_timeout: a.limits.kernel_timeout,
        run,
    };
    ServerOptions {
        log: a.log.clone(),
        check,
        fix,
    }
}

fn run_ir(a: &IrArgs) -> u8 {
    let configs = ConfigCache::new(a.config.config.clone(), a.config.no_config);
    let cfg = match configs.for_file(&a.file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return exit::INPUT;
        }
    };
    let opts = front_options_for(&a.input.front_options(), cfg.as_deref(), &a.file);
    let unit = match front::load(&a.file, &opts) {
        Ok(u) => u,
        Err(e) => {
            let rec = workflow::front_error(&a.file.display().to_string(), None, &e);
            eprintln!("{}", rec.render());
            return rec.exit_code;
        }
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

fn check_options(a: &CheckArgs) -> CheckOptions {
    CheckOptions {
        paths: a.files.clone(),
        front: a.input.front_options(),
        oracle: match a.oracle {
            OracleArg::Auto => OracleChoice::Auto,
            OracleArg::Sdv => OracleChoice::Sdv,
            OracleArg::Named => OracleChoice::Named,
        },
        timeout_ms: a.limits.timeout,
        strict: a.limits.strict,
        kernel_timeout: a.limits.kernel_timeout,
        stats: a.stats,
        run: a.run.options(),
    }
}

fn fix_request(a: &FixArgs) -> FixRequest {
    FixRequest {
        paths: a.files.clone(),
        front: a.input.front_options(),
        mode: if a.diff {
            FixMode::Diff
        } else if a.check {
            FixMode::Check
        } else if a.stdout {
            FixMode::Stdout
        } else {
            FixMode::Write
        },
        backup: a.backup,
        stats: a.stats,
        annotate: a.annotate,
        strategy: match a.strategy {
            StrategyArg::Maxsat => Strategy::Maxsat,
            StrategyArg::Naive => Strategy::Naive,
        },
        minimize: a.minimize,
        cost_loop: a.cost_loop,
        cost_if: a.cost_if,
        dump_wcnf: a.dump_wcnf.clone(),
        timeout_ms: a.limits.timeout,
        strict: a.limits.strict,
        reserved_ids: a.reserved_ids.as_ref().map(|s| s.0.clone()),
        named_style: a.named_style.map(|s| match s {
            NamedStyleArg::Asm => NamedStyle::Asm,
            NamedStyleArg::Cutlass => NamedStyle::Cutlass,
            NamedStyleArg::Macro => NamedStyle::Macro,
        }),
        kernel_timeout: a.limits.kernel_timeout,
        run: a.run.options(),
    }
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
    let run = || match &cli.cmd {
        Command::Ir(a) => run_ir(a),
        Command::Check(a) => workflow::run_check(&check_options(a)),
        Command::Fix(a) => workflow::run_fix(&fix_request(a)),
        Command::Server(a) => server::run(server_options(a)),
    };
    // On a thread with the workers' stack: `ir` and one-file runs recurse over the code's
    // nesting on it as the pool's threads do.
    let code = workflow::on_worker_stack(run);
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `autosync fix`'s flags alone, to parse a command line without the subcommand.
    #[derive(Parser)]
    struct Fix {
        #[command(flatten)]
        args: FixArgs,
    }

    #[test]
    fn fix_without_flags_writes_in_place_with_the_library_defaults_and_a_kernel_budget() {
        let a = Fix::try_parse_from(["autosync", "k.cu"]).unwrap().args;
        let r = fix_request(&a);
        assert_eq!(r.mode, FixMode::Write);
        assert_eq!(r.run.format, Format::Text);
        let mut opts = workflow::fix_options(&r, None, vec![]);
        assert_eq!(opts.synth.kernel_timeout, Some(std::time::Duration::from_secs(60)));
        opts.synth.kernel_timeout = None;
        // The command line always reads suppressions (comments, autosync.yaml); the library
        // default suppresses nothing unless a filter is given.
        assert!(opts.suppress.is_some());
        opts.suppress = None;
        assert_eq!(
            format!("{opts:?}"),
            format!("{:?}", crate::jobs::fix::FixOptions::default())
        );
        let a = Fix::try_parse_from(["autosync", "--diff", "--reserved-ids", "0-3", "k.cu"])
            .unwrap()
            .args;
        let r = fix_request(&a);
        assert_eq!(r.mode, FixMode::Diff);
        assert_eq!(r.reserved_ids, Some(vec![0, 1, 2, 3]));
    }

    #[test]
    fn help_has_headings_examples_and_exit_codes() {
        use clap::CommandFactory;
        let mut cmd = Cli::command();
        let fix = cmd.find_subcommand_mut("fix").unwrap();
        let help = fix.render_long_help().to_string();
        for part in [
            "What to do:",
            "Kernel input:",
            "Synthesis:",
            "Output and run:",
            "Examples:",
            "Exit codes:",
        ] {
            assert!(help.contains(part), "{part} missing from:\n{help}");
        }
    }
}
