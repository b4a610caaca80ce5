//! Walks the files of a translation unit: directives, conditional compilation and includes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use autosync_oracle::ir::{FileId, SourceFile, Span};

use super::expand::{Ctx, Expander};
use super::expr;
use super::lex::{lex_all, skip_blank, Cursor, Kind, Tok};
use super::output::Output;
use super::{PpError, PpOptions};

/// Deepest `#include` nesting accepted.
pub(crate) const MAX_INCLUDE_DEPTH: usize = 64;

/// Macros every CUDA translation unit sees (nvcc defines them too).
const PREDEFINED: [(&str, &str); 3] = [("__CUDACC__", "1"), ("__NVCC__", "1"), ("__cplusplus", "201703L")];

/// One open `#if` group.
struct Cond {
    /// Whether lines of the current branch are kept.
    active: bool,
    /// Whether the enclosing group is active.
    parent_active: bool,
    /// Whether some branch of this group was already taken.
    taken: bool,
    /// Whether `#else` was seen.
    seen_else: bool,
    /// The opening directive, for "unterminated" errors.
    span: Span,
}

/// A directive line: its tokens and positions in the file.
struct Line {
    toks: Vec<Tok>,
    /// Start of the line.
    start: usize,
    /// End of the line content (before the line ending).
    content_end: usize,
    /// End including the line ending.
    end: usize,
    /// Span of `#` up to the end of the content.
    span: Span,
}

/// State of one preprocessing run.
pub(crate) struct Driver<'o> {
    opts: &'o PpOptions,
    pub(crate) exp: Expander,
    /// The output under construction.
    pub out: Output,
    /// Files in order of first inclusion.
    pub files: Vec<SourceFile>,
    /// Their texts.
    pub texts: Vec<Rc<str>>,
    paths: Vec<PathBuf>,
    by_key: HashMap<PathBuf, FileId>,
    once: HashSet<FileId>,
    /// Notes for the user.
    pub notes: Vec<(Span, String)>,
    /// Output offset at each macro's latest `#define` (code after it may use the macro).
    pub macro_at: HashMap<String, usize>,
}

fn err(span: Span, message: impl Into<String>) -> PpError {
    PpError {
        span,
        message: message.into(),
    }
}

impl<'o> Driver<'o> {
    /// A driver for the main file `path` with contents `text`; applies predefined and `-D` macros.
    pub(crate) fn new(path: &Path, text: &str, opts: &'o PpOptions) -> Result<Self, PpError> {
        let mut d = Driver {
            opts,
            exp: Expander::new(),
            out: Output::default(),
            files: vec![SourceFile::new(path.display().to_string(), text)],
            texts: vec![text.into()],
            paths: vec![path.to_path_buf()],
            by_key: HashMap::new(),
            once: HashSet::new(),
            notes: Vec::new(),
            macro_at: HashMap::new(),
        };
        d.by_key.insert(file_key(path), FileId(0));
        let defines = PREDEFINED
            .iter()
            .map(|(n, v)| (n.to_string(), Some(v.to_string())))
            .chain(opts.defines.iter().cloned());
        for (name, value) in defines {
            let def = format!("{} {}", name, value.as_deref().unwrap_or("1"));
            d.exp.table.define(&lex_all(&def, 0), &def).map_err(|m| {
                err(
                    Span::DUMMY,
                    format!("invalid definition `-D {name}`: {m}; write it as NAME or NAME=VALUE"),
                )
            })?;
        }
        Ok(d)
    }

    /// Preprocesses the main file.
    pub(crate) fn run(&mut self) -> Result<(), PpError> {
        self.process_file(FileId(0), 0)
    }

    fn process_file(&mut self, fid: FileId, depth: usize) -> Result<(), PpError> {
        let text = self.texts[fid.0 as usize].clone();
        if let Some(at) = super::lex::unterminated_comment(text.as_bytes()) {
            return Err(err(
                Span::new(fid, at as u32, at as u32 + 2),
                "unterminated `/*` comment; add the closing `*/`",
            ));
        }
        let mut cursor = Cursor::new(&text);
        let mut conds: Vec<Cond> = Vec::new();
        loop {
            if conds.last().is_none_or(|c| c.active) {
                let ctx = Ctx {
                    src: &text,
                    file: fid,
                    lines: &self.files[fid.0 as usize],
                };
                self.exp.run_file(&ctx, &mut cursor, &mut self.out)?;
            } else {
                while !cursor.eof() && !cursor.at_directive() {
                    let (start, _, end) = cursor.read_line();
                    self.out.push_line_breaks(fid, &text, start, end);
                }
            }
            if cursor.eof() {
                break;
            }
            let (start, content_end, end) = cursor.read_line();
            let toks = lex_all(&text[start..content_end], start as u32);
            let hash = skip_blank(&toks, 0);
            let lo = toks.get(hash).map_or(start as u32, |t| t.origin.range().0);
            let span = Span::new(fid, lo, content_end as u32);
            let line = Line {
                toks,
                start,
                content_end,
                end,
                span,
            };
            self.directive(fid, &text, &line, hash, &mut conds, depth)?;
        }
        match conds.last() {
            Some(c) => Err(err(c.span, "this #if/#ifdef has no matching #endif; add `#endif`")),
            None => Ok(()),
        }
    }

    fn directive(
        &mut self,
        fid: FileId,
        text: &str,
        line: &Line,
        hash: usize,
        conds: &mut Vec<Cond>,
        depth: usize,
    ) -> Result<(), PpError> {
        let name_at = skip_blank(&line.toks, hash + 1);
        let name = match line.toks.get(name_at) {
            Some(t) if t.kind == Kind::Ident => t.text(text),
            _ => "", // null directive (`#` alone) or junk: ignored
        };
        let rest = line.toks.get(name_at + 1..).unwrap_or(&[]);
        let active = conds.last().is_none_or(|c| c.active);
        let span = line.span;
        match name {
            "if" | "ifdef" | "ifndef" => {
                let value = if active {
                    self.condition(fid, text, name, rest, span)?
                } else {
                    false
                };
                conds.push(Cond {
                    active: value,
                    parent_active: active,
                    taken: value || !active,
                    seen_else: false,
                    span,
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                let Some(c) = conds.last() else {
                    return Err(err(
                        span,
                        format!("#{name} without a matching #if; remove it or add the #if"),
                    ));
                };
                if c.seen_else {
                    return Err(err(span, format!("#{name} after #else; move it before the #else")));
                }
                let value = if c.parent_active && !c.taken {
                    let kind = match name {
                        "elif" => "if",
                        "elifdef" => "ifdef",
                        _ => "ifndef",
                    };
                    self.condition(fid, text, kind, rest, span)?
                } else {
                    false
                };
                if let Some(c) = conds.last_mut() {
                    c.active = value;
                    c.taken |= value;
                }
            }
            "else" => {
                let Some(c) = conds.last_mut() else {
                    return Err(err(span, "#else without a matching #if; remove it or add the #if"));
                };
                if c.seen_else {
                    return Err(err(span, "second #else for the same #if; remove one"));
                }
                c.active = c.parent_active && !c.taken;
                c.taken = true;
                c.seen_else = true;
            }
            "endif" => {
                conds
                    .pop()
                    .ok_or_else(|| err(span, "#endif without a matching #if; remove it"))?;
            }
            _ if !active => {}
            "define" => {
                self.exp.table.define(rest, text).map_err(|m| err(span, m))?;
                if let Some(t) = rest.get(skip_blank(rest, 0)) {
                    self.macro_at.insert(t.text(text).to_string(), self.out.text.len());
                }
            }
            "undef" => match rest.get(skip_blank(rest, 0)) {
                Some(t) if t.kind == Kind::Ident => self.exp.table.undef(t.text(text)),
                _ => return Err(err(span, "#undef needs a macro name, e.g. `#undef N`")),
            },
            "include" => {
                self.include(fid, text, rest, span, depth)?;
                // The line's own line endings follow the spliced file.
                self.out.push_line_breaks(fid, text, line.start, line.end);
                return Ok(());
            }
            "pragma" => {
                let once = rest.get(skip_blank(rest, 0)).is_some_and(|t| t.text(text) == "once");
                if once {
                    self.once.insert(fid);
                } else {
                    // Kept verbatim: the parser reads `#pragma unroll` and friends.
                    self.out
                        .push_verbatim(fid, line.start as u32, &text[line.start..line.end]);
                    return Ok(());
                }
            }
            "error" => {
                let msg = text
                    [rest.first().map_or(line.content_end, |t| t.origin.range().0 as usize)..line.content_end]
                    .trim();
                return Err(err(
                    span,
                    format!("#error: {msg} (the code rejects this configuration; check the -D options)"),
                ));
            }
            "warning" => {
                let msg = text
                    [rest.first().map_or(line.content_end, |t| t.origin.range().0 as usize)..line.content_end]
                    .trim();
                self.notes.push((span, format!("#warning: {msg}")));
            }
            _ => {} // #line, #ident, unknown: no effect on the kernel
        }
        self.out.push_line_breaks(fid, text, line.start, line.end);
        Ok(())
    }

    /// Value of the condition of `#if`, `#ifdef` or `#ifndef` with operand tokens `rest`.
    fn condition(&mut self, fid: FileId, text: &str, kind: &str, rest: &[Tok], span: Span) -> Result<bool, PpError> {
        if kind != "if" {
            return match rest.get(skip_blank(rest, 0)) {
                Some(t) if t.kind == Kind::Ident => Ok(self.exp.table.is_defined(t.text(text)) == (kind == "ifdef")),
                _ => Err(err(
                    span,
                    format!("#{kind} needs a macro name, e.g. `#{kind} USE_SHARED`"),
                )),
            };
        }
        let toks = resolve_defined(rest, text, &self.exp).map_err(|m| err(span, m))?;
        let ctx = Ctx {
            src: text,
            file: fid,
            lines: &self.files[fid.0 as usize],
        };
        self.exp.reset_budget();
        let expanded = self.exp.expand_list(&ctx, toks, 0)?;
        // `defined` produced by a macro expansion (undefined behavior; accepted like GCC does).
        let toks = resolve_defined(&expanded, text, &self.exp).map_err(|m| err(span, m))?;
        expr::eval(&toks, text)
            .map(|v| v != 0)
            .map_err(|m| err(span, format!("{m}; #if needs an integer constant expression")))
    }

    fn include(&mut self, fid: FileId, text: &str, rest: &[Tok], span: Span, depth: usize) -> Result<(), PpError> {
        let target = match include_target(rest, text) {
            Some(t) => t,
            None => {
                // `#include MACRO`: expand, then read the target again.
                let ctx = Ctx {
                    src: text,
                    file: fid,
                    lines: &self.files[fid.0 as usize],
                };
                self.exp.reset_budget();
                let expanded = self.exp.expand_list(&ctx, rest.to_vec(), 0)?;
                include_target(&expanded, text)
                    .ok_or_else(|| err(span, "#include expects \"FILE\" or <FILE>; fix the file name"))?
            }
        };
        let (name, system) = target;
        if system {
            self.notes.push((span, format!("system include <{name}> skipped")));
            return Ok(());
        }
        let here = self.paths[fid.0 as usize]
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let searched: Vec<PathBuf> = std::iter::once(here)
            .chain(self.opts.include_dirs.iter().cloned())
            .collect();
        let Some(path) = searched.iter().map(|d| d.join(&name)).find(|p| p.is_file()) else {
            if is_known_system_header(&name) {
                self.notes.push((
                    span,
                    format!("include \"{name}\" not found; skipped as a system/CUDA header"),
                ));
                return Ok(());
            }
            let dirs: Vec<String> = searched
                .iter()
                .map(|d| {
                    if d.as_os_str().is_empty() {
                        ".".to_string()
                    } else {
                        d.display().to_string()
                    }
                })
                .collect();
            return Err(err(
                span,
                format!(
                    "cannot find include file \"{name}\" (searched {}); add its directory with -I",
                    dirs.join(", ")
                ),
            ));
        };
        if depth + 1 >= MAX_INCLUDE_DEPTH {
            return Err(err(
                span,
                format!(
                    "#include nested more than {MAX_INCLUDE_DEPTH} levels deep; a header probably includes \
                     itself — add an include guard or #pragma once"
                ),
            ));
        }
        let key = file_key(&path);
        let nfid = match self.by_key.get(&key) {
            Some(&f) => f,
            None => {
                let bytes = std::fs::read(&path)
                    .map_err(|e| err(span, format!("cannot read include file {}: {e}", path.display())))?;
                let content = String::from_utf8_lossy(&bytes).into_owned();
                let f = FileId(self.files.len() as u32);
                self.files.push(SourceFile::new(path.display().to_string(), &content));
                self.texts.push(content.into());
                self.paths.push(path);
                self.by_key.insert(key, f);
                f
            }
        };
        if self.once.contains(&nfid) {
            return Ok(());
        }
        self.process_file(nfid, depth + 1)
    }
}

/// Identity of a file on disk, so that a header reached by two paths is one file.
fn file_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Replaces `defined X` / `defined(X)` by `1` or `0`.
fn resolve_defined(toks: &[Tok], src: &str, exp: &Expander) -> Result<Vec<Tok>, String> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        if t.kind != Kind::Ident || t.text(src) != "defined" {
            out.push(t.clone());
            i += 1;
            continue;
        }
        let mut j = skip_blank(toks, i + 1);
        let paren = toks.get(j).is_some_and(|t| t.is_punct(src, "("));
        if paren {
            j = skip_blank(toks, j + 1);
        }
        let Some(name) = toks.get(j).filter(|t| t.kind == Kind::Ident) else {
            return Err("`defined` needs a macro name: `defined(NAME)` or `defined NAME`".into());
        };
        let value = if exp.table.is_defined(name.text(src)) { "1" } else { "0" };
        if paren {
            j = skip_blank(toks, j + 1);
            if !toks.get(j).is_some_and(|t| t.is_punct(src, ")")) {
                return Err("missing `)` after `defined(NAME`".into());
            }
        }
        out.push(Tok::own(Kind::Number, value, t.origin));
        i = j + 1;
    }
    Ok(out)
}

/// The file named by `"name"` (false) or `<name>` (true) at the start of `toks`.
fn include_target(toks: &[Tok], src: &str) -> Option<(String, bool)> {
    let i = skip_blank(toks, 0);
    let first = toks.get(i)?;
    let spelled = first.text(src);
    if first.kind == Kind::Str && spelled.len() >= 2 && spelled.starts_with('"') && spelled.ends_with('"') {
        return Some((spelled[1..spelled.len() - 1].to_string(), false));
    }
    if !first.is_punct(src, "<") {
        return None;
    }
    let mut name = String::new();
    for t in &toks[i + 1..] {
        if t.is_punct(src, ">") {
            return Some((name.trim().to_string(), true));
        }
        if t.space_before {
            name.push(' ');
        }
        name.push_str(t.text(src));
    }
    None
}

/// Whether a quoted include that cannot be found is a CUDA toolkit, CUDA sample or standard
/// library header, which the kernel model does not need.
fn is_known_system_header(name: &str) -> bool {
    const PREFIXES: [&str; 20] = [
        "cuda",
        "cub/",
        "thrust/",
        "cooperative_groups",
        "cutlass/",
        "cute/",
        "crt/",
        "sm_",
        "math_functions",
        "vector_types",
        "vector_functions",
        "driver_types",
        "host_defines",
        "cublas",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "nvrtc",
        "nvtx",
    ];
    const EXACT: [&str; 48] = [
        "mma.h",
        "device_functions.h",
        "device_launch_parameters.h",
        "device_atomic_functions.h",
        "device_types.h",
        "helper_cuda.h",
        "helper_functions.h",
        "helper_math.h",
        "helper_string.h",
        "helper_timer.h",
        "helper_image.h",
        "assert.h",
        "ctype.h",
        "errno.h",
        "float.h",
        "limits.h",
        "math.h",
        "stdarg.h",
        "stdbool.h",
        "stddef.h",
        "stdint.h",
        "stdio.h",
        "stdlib.h",
        "string.h",
        "time.h",
        "inttypes.h",
        "unistd.h",
        "iostream",
        "cstdio",
        "cstdlib",
        "cmath",
        "cstring",
        "cassert",
        "cstdint",
        "climits",
        "cfloat",
        "vector",
        "algorithm",
        "string",
        "utility",
        "type_traits",
        "limits",
        "memory",
        "array",
        "tuple",
        "functional",
        "numeric",
        "chrono",
    ];
    let base = name.rsplit('/').next().unwrap_or(name);
    PREFIXES.iter().any(|p| name.starts_with(p) || base.starts_with(p)) || EXACT.contains(&base)
}
