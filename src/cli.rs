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
    /// Print the kernel IR with labels, spans and launch configuration.
    Ir(IrArgs),
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
    };
    ExitCode::from(code)
}
