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
mod options;
mod source_unit;
mod unit;

pub use options::FrontOptions;
pub use source_unit::{base_name, SourceUnit, UnitCache, Unlowered, ASSUMPTION};
pub use unit::lower_parsed;

use autosync_oracle::ir::{FileId, SourceFile, Span};
pub use error::{FResult, FrontError, FrontErrorKind};
use lower::kernels::Uninstantiated;
use lower::source::SourceMap;
use lower::types::Types;
use std::path::Path;

/// Reads and lowers a file. IO problems and invalid UTF-8 are input errors.
pub fn load(path: &Path, opts: &FrontOptions) -> FResult<SourceUnit> {
    load_cached(path, opts, None)
}

/// [`load`], taking the unit from `cache` when it holds one read from the same inputs.
pub fn load_cached(path: &Path, opts: &FrontOptions, cache: Option<&dyn UnitCache>) -> FResult<SourceUnit> {
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
    lower_text_cached(path, &text, opts, cache)
}

/// Lowers text that is the content of `path` (used by `load`, tests, re-verification of
/// patched text, and the fuzzers).
pub fn lower_text(path: &Path, text: &str, opts: &FrontOptions) -> FResult<SourceUnit> {
    lower_text_cached(path, text, opts, None)
}

/// [`lower_text`], taking the unit from `cache` when it holds one read from the same text,
/// options, toolchain and files, and keeping the unit it lowers there.
pub fn lower_text_cached(
    path: &Path,
    text: &str,
    opts: &FrontOptions,
    cache: Option<&dyn UnitCache>,
) -> FResult<SourceUnit> {
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
    // Everything the reading depends on but the text and the files Clang reads.
    let reading = format!("{}\n{copts:?}\n{opts:?}\n{env:?}", path.display());
    if let Some(unit) = cache.and_then(|c| c.get(&reading, text)) {
        return Ok(unit);
    }
    let parsed = parse(text, dir, &env)?;
    let mut deps = parsed.deps.clone();
    notes.push((Span::DUMMY, env.describe()));
    notes.extend(env.toolchain.notes.iter().map(|n| (Span::DUMMY, n.clone())));
    let mut ast = parsed.ast;
    let mut errors = parsed.errors;
    let mut appended = String::new();
    let mut open_templates = Vec::new();
    let open_files;
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
            (appended, open_templates) = instantiate::instantiations(&ast, &src, &wanted, opts);
        }
        open_files = src.files();
    }
    if !appended.is_empty() {
        let full = format!("{text}\n{appended}");
        let again = parse(&full, dir, &env)?;
        deps.extend(again.deps);
        ast = again.ast;
        errors = again.errors;
    }
    let preprocess = || clang::preprocess::preprocess(text, dir, &env);
    // The lowering names the architecture the build's flags chose (traps in code a library
    // disables below some architecture say which).
    let mut lopts = opts.clone();
    lopts.clang.arch = Some(copts.arch().to_string());
    let mut unit = unit::lower_parsed_with(path, text, &ast, &errors, &header, notes, &lopts, Some(&preprocess))?;
    // Templates left open are kernels not checked here, each with why (in file order). Their
    // spans name files by the first read's ids: put in the unit's.
    for mut u in open_templates {
        u.span = rebase(u.span, &open_files, &mut unit);
        u.error.span = rebase(u.error.span, &open_files, &mut unit);
        unit.unlowered.push(u);
    }
    unit.unlowered.sort_by_key(|u| (u.span.file.0, u.span.lo));
    release(ast);
    unit.inputs = inputs_of(deps, &env);
    unit.env = Some(env.toolchain);
    if let Some(c) = cache {
        c.put(&reading, text, &unit);
    }
    Ok(unit)
}

/// The files a reading depended on: those Clang read, the precompiled prelude and Clang.
fn inputs_of(mut deps: Vec<std::path::PathBuf>, env: &clang::Environment) -> Vec<std::path::PathBuf> {
    if let clang::Prelude::Precompiled(p) = &env.prelude {
        deps.push(p.clone());
    }
    deps.push(env.toolchain.clang.clone());
    deps.sort();
    deps.dedup();
    deps
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

/// `span` of a file of `from` (another read's files and texts), as a span of `unit`'s files
/// (the file added to them when the unit does not name it).
fn rebase(span: Span, from: &(Vec<SourceFile>, Vec<String>), unit: &mut SourceUnit) -> Span {
    let Some(file) = from.0.get(span.file.0 as usize).filter(|_| !span.is_dummy()) else {
        return span;
    };
    let id = match unit.files.iter().position(|f| f.path == file.path) {
        Some(i) => i,
        None => {
            unit.files.push(file.clone());
            unit.texts
                .push(from.1.get(span.file.0 as usize).cloned().unwrap_or_default());
            unit.files.len() - 1
        }
    };
    Span {
        file: FileId(id as u32),
        ..span
    }
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
