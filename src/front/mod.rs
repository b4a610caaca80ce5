//! The CUDA front end: Clang reads the file (device pass, JSON AST), the lowering turns its
//! kernels into the IR.
//!
//! Entry point: [`load`] turns one `.cu` file into kernels in IR form, each with spans into the
//! original files and its launch configuration resolved.

pub mod ast;
pub mod clang;
mod clang_errors;
pub mod ctype;
pub mod error;
mod instantiate;
pub mod intrinsics;
pub mod launch;
mod launch_config;
mod launch_sites;
pub mod lower;
mod unit;

pub use unit::lower_parsed;

use autosync_oracle::ir::{BarrierHelper, FileId, Kernel, Span};
pub use error::{FResult, FrontError, FrontErrorKind};
use lower::kernels::Uninstantiated;
use lower::source::SourceMap;
use lower::types::Types;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
}

/// How a note that a verdict rests on begins (a call modelled without its body): such notes
/// are shown without `--verbose`.
pub const ASSUMPTION: &str = "assumed: ";

/// One source file with its kernels in IR form.
#[derive(Clone, Debug)]
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
    /// Where it was read: Clang, CUDA toolkit or shim, architecture (None for an AST no Clang
    /// run produced).
    pub env: Option<clang::Toolchain>,
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

/// Reads and lowers a file. IO problems and invalid UTF-8 are input errors.
pub fn load(path: &Path, opts: &FrontOptions) -> FResult<SourceUnit> {
    let file0 = Span::new(FileId(0), 0, 0);
    let bytes = std::fs::read(path).map_err(|e| {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "file not found".to_string()
        } else {
            format!("cannot read {}: {e}", path.display())
        };
        FrontError::input(Span::DUMMY, what).with_help("check the path and permissions")
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to() as u32;
        FrontError::input(Span::new(FileId(0), at, at + 1), "file is not valid UTF-8")
            .with_help("autosync reads CUDA sources as UTF-8; convert the file's encoding")
    })?;
    let _ = file0;
    lower_text(path, &text, opts)
}

/// The name of a kernel without template arguments (`reduce<256>` → `reduce`).
pub fn base_name(kernel: &str) -> &str {
    kernel.split('<').next().unwrap_or(kernel)
}

/// Lowers text that is the content of `path` (used by `load`, tests, re-verification of
/// patched text, and the fuzzers).
pub fn lower_text(path: &Path, text: &str, opts: &FrontOptions) -> FResult<SourceUnit> {
    if let Some(at) = text.bytes().position(|b| b == 0) {
        return Err(FrontError::input(
            Span::new(FileId(0), at as u32, at as u32 + 1),
            "file contains NUL bytes (binary file?)",
        )
        .with_help("pass CUDA source files only"));
    }
    let header = launch::parse_header(text);
    let mut copts = opts.clang.clone();
    copts.include_dirs.extend(opts.include_dirs.iter().cloned());
    for (n, v) in opts.defines.iter().chain(&header.defines) {
        if !copts.defines.iter().any(|(m, _)| m == n) {
            copts.defines.push((n.clone(), v.clone()));
        }
    }
    let mut notes: Vec<(Span, String)> = Vec::new();
    if !opts.no_compile_db {
        compile_flags(path, opts, &mut copts, &mut notes)?;
    }
    let dir = path.parent().unwrap_or(Path::new(""));
    let env =
        clang::Environment::resolve(&copts).map_err(|e| FrontError::input(Span::DUMMY, e.message).with_help(e.help))?;
    let parsed = parse(text, dir, &env)?;
    notes.push((Span::DUMMY, env.describe()));
    notes.extend(env.toolchain.notes.iter().map(|n| (Span::DUMMY, n.clone())));
    let mut ast = parsed.ast;
    let mut errors = parsed.errors;
    let mut appended = String::new();
    // Kernel templates the file never instantiates: instantiate them with the user's values.
    {
        let types = Types::new(&ast).with_main_text(text);
        let src = SourceMap::new(&ast, path, text);
        let (_, templates) = lower::kernels::find(&ast, &src, &types);
        let wanted: Vec<&Uninstantiated> = templates
            .iter()
            .filter(|t| opts.kernel.as_deref().is_none_or(|k| base_name(k) == t.name))
            .collect();
        if !wanted.is_empty() {
            appended = instantiate::instantiations(&ast, &src, &wanted, opts)?;
        }
    }
    if !appended.is_empty() {
        let full = format!("{text}\n{appended}");
        let again = parse(&full, dir, &env)?;
        ast = again.ast;
        errors = again.errors;
    }
    let mut unit = lower_parsed(path, text, &ast, &errors, &header, notes, opts)?;
    release(ast);
    unit.env = Some(env.toolchain);
    Ok(unit)
}

/// Adds the flags of the file's `compile_commands.json` entry (the database `-p` names, else
/// the nearest one) to `copts`. A database the user named that cannot be read is an input
/// error; one found by searching is then ignored with a note.
fn compile_flags(
    path: &Path,
    opts: &FrontOptions,
    copts: &mut clang::ClangOptions,
    notes: &mut Vec<(Span, String)>,
) -> FResult<()> {
    let explicit = opts.compile_db.as_deref();
    match clang::compile_db::apply(path, explicit, copts) {
        Ok(Some(used)) => notes.push((
            Span::DUMMY,
            format!("flags from {}: `{}`", used.db.display(), used.command),
        )),
        Ok(None) => {
            if let Some(db) = explicit {
                let db = clang::compile_db::named(db);
                notes.push((
                    Span::DUMMY,
                    format!("{} has no entry for this file: read without its flags", db.display()),
                ));
            }
        }
        Err(m) if explicit.is_some() => {
            return Err(FrontError::input(Span::DUMMY, m)
                .with_help("point -p (--compile-commands) at a build directory holding compile_commands.json"))
        }
        Err(m) => notes.push((Span::DUMMY, format!("ignored: {m}"))),
    }
    Ok(())
}

/// Frees a large AST on a thread of its own: a CUB file's holds millions of nodes, and freeing
/// them took 50 ms of the front end's critical path.
fn release(ast: ast::Ast) {
    if ast.nodes.len() >= 100_000 {
        // Should no thread be had, the AST is freed here as before.
        let _ = std::thread::Builder::new().spawn(move || drop(ast));
    }
}

/// Runs Clang; failing to run it at all is an input error (exit 2) with the install hint.
fn parse(text: &str, dir: &Path, env: &clang::Environment) -> FResult<clang::Parsed> {
    clang::parse(text, dir, env).map_err(|e| FrontError::input(Span::DUMMY, e.message).with_help(e.help))
}
