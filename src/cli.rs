//! Command-line interface.

use crate::front::{self, FrontError, FrontErrorKind, FrontOptions};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
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

#[derive(Args, Debug)]
struct FixArgs {
    /// CUDA files or directories (searched for .cu/.cuh).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Print a unified diff and write nothing.
    #[arg(long, conflicts_with_all = ["check", "stdout"])]
    diff: bool,
    /// Write nothing; exit 1 if a fix would change a file.
    #[arg(long, conflicts_with = "stdout")]
    check: bool,
    /// Print the patched file to standard output and write nothing.
    #[arg(long)]
    stdout: bool,
    /// Print oracle calls, MaxSAT calls and time per kernel.
    #[arg(long)]
    stats: bool,
    /// Keep the original of each changed file as FILE.orig.
    #[arg(long)]
    backup: bool,
    /// Add a trailing comment to each inserted barrier naming the races it removes.
    #[arg(long)]
    annotate: bool,
    /// Synthesis strategy.
    #[arg(long, value_enum, default_value = "maxsat")]
    strategy: crate::fix::Strategy,
    /// Cost factor per enclosing loop.
    #[arg(long = "cost-loop", default_value_t = 100.0)]
    cost_loop: f64,
    /// Cost factor per enclosing if.
    #[arg(long = "cost-if", default_value_t = 0.5)]
    cost_if: f64,
    /// Write each MaxSAT instance as WCNF into this directory.
    #[arg(long = "dump-wcnf")]
    dump_wcnf: Option<PathBuf>,
    /// Solver time limit per query in milliseconds.
    #[arg(long, default_value_t = 2000)]
    timeout: u32,
    /// Wall-clock budget per kernel in seconds (a kernel that runs out is inconclusive).
    #[arg(long = "kernel-timeout", default_value = "60", value_parser = parse_seconds)]
    kernel_timeout: std::time::Duration,
    /// Output format for the report.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
enum OutFormat {
    Text,
    Json,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// CUDA files or directories (searched for .cu/.cuh).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// Which checker: auto picks the named-barrier checker for kernels that use named barriers.
    #[arg(long, value_enum, default_value = "auto")]
    oracle: crate::check::OracleChoice,
    /// Solver time limit per query in milliseconds (an unanswered query is never "clean").
    #[arg(long, default_value_t = 2000)]
    timeout: u32,
    /// Wall-clock budget per kernel in seconds (a kernel that runs out is inconclusive).
    #[arg(long = "kernel-timeout", default_value = "60", value_parser = parse_seconds)]
    kernel_timeout: std::time::Duration,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,
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
    /// Preprocessor / template definition: NAME or NAME=VALUE.
    #[arg(short = 'D', long = "define")]
    pub defines: Vec<String>,
    /// Include directory for "local.h" includes.
    #[arg(short = 'I', long = "include")]
    pub include_dirs: Vec<PathBuf>,
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
            include_dirs: self.include_dirs.clone(),
            block_dim: self.block_dim,
            grid_dim: self.grid_dim,
            warp_sync: self.warp_sync,
            params: self.params.iter().cloned().collect(),
        }
    }
}

fn parse_dim_arg(s: &str) -> Result<[u32; 3], String> {
    front::launch::parse_dim(s)
        .ok_or_else(|| format!("`{s}` is not a dimension (use 256, [16,16] or [8,8,4]; each >= 1)"))
}

fn parse_seconds(s: &str) -> Result<std::time::Duration, String> {
    s.parse::<f64>()
        .ok()
        .and_then(|v| std::time::Duration::try_from_secs_f64(v).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{s}` is not a positive number of seconds"))
}

fn parse_param(s: &str) -> Result<(String, i64), String> {
    let (n, v) = s.split_once('=').ok_or_else(|| format!("`{s}` should be NAME=VALUE"))?;
    let v = crate::front::lower::const_int_pub(v).ok_or_else(|| format!("`{v}` is not an integer"))?;
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
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: IrFormat,
}

/// Prints a front-end error as `file:line:col: error: ...` and returns its exit code.
pub fn report_front_error(path: &std::path::Path, texts: Option<&[String]>, e: &FrontError) -> u8 {
    let loc = if e.span.is_dummy() {
        path.display().to_string()
    } else {
        match texts.and_then(|t| t.get(e.span.file.0 as usize)) {
            Some(t) => {
                let f = autosync_oracle::ir::SourceFile::new(path.display().to_string(), t);
                let (l, c) = f.line_col(e.span.lo.min(t.len() as u32));
                format!("{}:{l}:{c}", path.display())
            }
            None => {
                let text = std::fs::read(path)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                let f = autosync_oracle::ir::SourceFile::new(path.display().to_string(), &text);
                let (l, c) = f.line_col(e.span.lo.min(text.len() as u32));
                format!("{}:{l}:{c}", path.display())
            }
        }
    };
    let what = match e.kind {
        FrontErrorKind::Input => "error",
        FrontErrorKind::Unsupported => "unsupported",
        FrontErrorKind::MissingValue => "needs a value",
    };
    eprintln!("{loc}: {what}: {}", e.message);
    if let Some(h) = &e.help {
        eprintln!("  help: {h}");
    }
    match e.kind {
        FrontErrorKind::Input => exit::INPUT,
        _ => exit::INCONCLUSIVE,
    }
}

fn run_ir(a: &IrArgs) -> u8 {
    let unit = match front::load(&a.file, &a.input.front_options()) {
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

/// Reports a file without kernels: an input error when the user named the file itself, a note
/// when a directory search found it (headers have no kernels). Returns the exit code.
fn no_kernels(f: &std::path::Path, unit: &front::SourceUnit, named: &[PathBuf]) -> u8 {
    let empty = unit.texts.first().is_none_or(|t| t.trim().is_empty());
    let what = if empty {
        "file is empty"
    } else {
        "no __global__ kernel in this file"
    };
    if named.iter().any(|p| p == f) {
        eprintln!("{}: error: {what}", f.display());
        exit::INPUT
    } else {
        eprintln!("{}: note: {what}", f.display());
        exit::OK
    }
}

#[derive(serde::Serialize)]
struct KernelJson<'a> {
    file: String,
    kernel: &'a str,
    checker: &'a str,
    verdict: crate::check::Verdict,
    report: &'a autosync_oracle::report::Report,
}

fn run_check(a: &CheckArgs) -> u8 {
    use crate::check::{check_kernel_within, render_report, verdict, Sources, Verdict};
    let files = expand_inputs(&a.files);
    if files.is_empty() {
        eprintln!("error: no .cu/.cuh files found in the given paths");
        return exit::INPUT;
    }
    let mut worst = exit::OK;
    let mut kernels_seen = 0;
    let mut json = Vec::new();
    let bump = |c: u8, worst: &mut u8| {
        // Input errors dominate, then inconclusive, then defects.
        let rank = |c: u8| match c {
            exit::INPUT => 4,
            exit::INCONCLUSIVE => 3,
            exit::DEFECTS => 2,
            _ => 0,
        };
        if rank(c) > rank(*worst) {
            *worst = c;
        }
    };
    for f in &files {
        let unit = match front::load(f, &a.input.front_options()) {
            Ok(u) => u,
            Err(e) => {
                let c = report_front_error(f, None, &e);
                bump(c, &mut worst);
                continue;
            }
        };
        if unit.kernels.is_empty() {
            bump(no_kernels(f, &unit, &a.files), &mut worst);
            continue;
        }
        kernels_seen += unit.kernels.len();
        let src = Sources { texts: &unit.texts };
        for k in &unit.kernels {
            let (report, checker) = check_kernel_within(k, a.oracle, a.timeout, Some(a.kernel_timeout));
            let v = verdict(&report);
            bump(
                match v {
                    Verdict::Clean => exit::OK,
                    Verdict::Defects => exit::DEFECTS,
                    Verdict::Inconclusive => exit::INCONCLUSIVE,
                },
                &mut worst,
            );
            match a.format {
                OutFormat::Text => print!("{}", render_report(k, &src, &report, checker)),
                OutFormat::Json => json.push(serde_json::json!(KernelJson {
                    file: f.display().to_string(),
                    kernel: &k.name,
                    checker,
                    verdict: v,
                    report: &report
                })),
            }
        }
    }
    if kernels_seen == 0 && worst == exit::OK {
        eprintln!("error: no __global__ kernel in the given paths");
        worst = exit::INPUT;
    }
    if a.format == OutFormat::Json {
        let doc = serde_json::json!({ "version": 1, "kernels": json });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    worst
}

fn run_fix(a: &FixArgs) -> u8 {
    use crate::fix::{fix_file, write_back_with, FixError, FixOptions};
    if !(a.cost_loop.is_finite() && a.cost_loop >= 1.0 && a.cost_if.is_finite() && a.cost_if > 0.0) {
        eprintln!("error: --cost-loop must be >= 1 and --cost-if > 0");
        return exit::INPUT;
    }
    let files = expand_inputs(&a.files);
    if files.is_empty() {
        eprintln!("error: no .cu/.cuh files found in the given paths");
        return exit::INPUT;
    }
    let opts = FixOptions {
        synth: crate::synth::block::SynthOptions {
            cost_loop: a.cost_loop,
            cost_if: a.cost_if,
            timeout_ms: a.timeout,
            dump_wcnf: a.dump_wcnf.clone(),
            kernel_timeout: Some(a.kernel_timeout),
            ..Default::default()
        },
        strategy: a.strategy,
        annotate: a.annotate,
    };
    let mut worst = exit::OK;
    let rank = |c: u8| match c {
        exit::INPUT => 5,
        exit::INCONCLUSIVE => 4,
        exit::UNFIXABLE => 3,
        exit::DEFECTS => 2,
        _ => 0,
    };
    let mut bump = |c: u8| {
        if rank(c) > rank(worst) {
            worst = c;
        }
    };
    let mut json = Vec::new();
    let mut kernels_seen = 0;
    for f in &files {
        let res = match fix_file(f, &a.input.front_options(), &opts) {
            Ok(r) => r,
            Err(FixError::Front(e)) => {
                bump(report_front_error(f, None, &e));
                continue;
            }
            Err(FixError::Emit(m)) | Err(FixError::Verification(m)) => {
                eprintln!("{}: error: {m}; nothing written", f.display());
                bump(exit::INCONCLUSIVE);
                continue;
            }
        };
        if res.kernels.is_empty() {
            if let Ok(unit) = front::lower_text(f, &res.original, &a.input.front_options()) {
                bump(no_kernels(f, &unit, &a.files));
            }
        }
        kernels_seen += res.kernels.len();
        for k in &res.kernels {
            match k.status {
                "unfixable" => bump(exit::UNFIXABLE),
                "inconclusive" => bump(exit::INCONCLUSIVE),
                _ => {}
            }
            if a.format == OutFormat::Text {
                for b in &k.barriers {
                    let covers = if b.covers.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", covers {} race{}: {}",
                            b.covers.len(),
                            if b.covers.len() == 1 { "" } else { "s" },
                            b.covers.join(", ")
                        )
                    };
                    let verb = if a.diff || a.check || a.stdout {
                        "would insert"
                    } else {
                        "inserted"
                    };
                    eprintln!(
                        "{}:{}: {verb} __syncthreads() (cost {}{covers})",
                        f.display(),
                        b.line,
                        fmt_cost(b.cost)
                    );
                }
                if k.status == "unfixable" || k.status == "inconclusive" {
                    eprintln!(
                        "{}: kernel `{}` is {}; nothing written",
                        f.display(),
                        k.kernel,
                        k.status
                    );
                    for r in &k.reasons {
                        eprintln!("  {r}");
                    }
                }
                if a.stats {
                    eprintln!(
                        "{}: kernel `{}`: {} oracle calls, {} MaxSAT calls, {} rounds, {:.1} ms",
                        f.display(),
                        k.kernel,
                        k.stats.oracle_calls,
                        k.stats.maxsat_calls,
                        k.stats.rounds,
                        k.stats.millis
                    );
                }
            }
        }
        if res.changed {
            if a.check {
                bump(exit::DEFECTS);
                if a.format == OutFormat::Text {
                    eprintln!("{}: would change", f.display());
                }
            } else if a.diff {
                if a.format == OutFormat::Text {
                    print!("{}", res.diff);
                }
            } else if a.stdout {
                print!("{}", res.patched.as_deref().unwrap_or_default());
            } else if let Err(m) = write_back_with(f, &res, a.backup) {
                eprintln!("error: {m}");
                bump(exit::INPUT);
            }
        } else if a.stdout {
            print!("{}", res.original);
        }
        if a.format == OutFormat::Json {
            json.push(serde_json::to_value(&res).unwrap_or_default());
        }
    }
    if kernels_seen == 0 && worst == exit::OK {
        eprintln!("error: no __global__ kernel in the given paths");
        worst = exit::INPUT;
    }
    if a.format == OutFormat::Json {
        let doc = serde_json::json!({ "version": 1, "files": json });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    }
    worst
}

fn fmt_cost(c: f64) -> String {
    if c.fract() == 0.0 {
        format!("{c:.0}")
    } else {
        format!("{c}")
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
    let code = match &cli.cmd {
        Command::Ir(a) => run_ir(a),
        Command::Check(a) => run_check(a),
        Command::Fix(a) => run_fix(a),
    };
    ExitCode::from(code)
}
