//! Macro expansion: hide sets for the "painted blue" rule, `#`, `##`, `__VA_ARGS__`,
//! `__VA_OPT__`, with limits so runaway expansion errors instead of hanging or overflowing.

use std::rc::Rc;

use autosync_oracle::ir::{FileId, SourceFile, Span};

use super::lex::{lex_all, Cursor, HideSet, Kind, Origin, Tok};
use super::macros::{Builtin, Macro, MacroTable};
use super::output::Output;
use super::PpError;

/// Most tokens one top-level macro use may produce, counting intermediate rescans.
const MAX_WORK: usize = 2_000_000;
/// Deepest nesting of macro arguments that are expanded while expanding another macro.
const MAX_ARG_DEPTH: usize = 200;

/// The file being expanded in.
pub(crate) struct Ctx<'a> {
    /// Its text.
    pub src: &'a str,
    /// Its id.
    pub file: FileId,
    /// Its line table (for `__LINE__`).
    pub lines: &'a SourceFile,
}

impl Ctx<'_> {
    fn span(&self, origin: Origin) -> Span {
        let (lo, hi) = origin.range();
        Span::new(self.file, lo, hi)
    }

    fn error(&self, origin: Origin, message: String) -> PpError {
        PpError {
            span: self.span(origin),
            message,
        }
    }
}

/// Token source of an expansion: tokens pushed back for rescanning, then the file.
pub(crate) struct Input<'c, 'a> {
    /// Stack of pending tokens (top = next).
    pending: Vec<Tok>,
    cursor: Option<&'c mut Cursor<'a>>,
}

impl<'c, 'a> Input<'c, 'a> {
    /// Input reading the file through `cursor`.
    pub(crate) fn file(cursor: &'c mut Cursor<'a>) -> Self {
        Input {
            pending: Vec::new(),
            cursor: Some(cursor),
        }
    }

    /// Input reading just `toks`.
    pub(crate) fn tokens(mut toks: Vec<Tok>) -> Self {
        toks.reverse();
        Input {
            pending: toks,
            cursor: None,
        }
    }

    fn next(&mut self) -> Option<Tok> {
        if let Some(t) = self.pending.pop() {
            return Some(t);
        }
        let (kind, lo, hi) = self.cursor.as_mut()?.next_text()?;
        Some(Tok::src(kind, lo, hi))
    }

    fn push_front(&mut self, toks: Vec<Tok>) {
        self.pending.extend(toks.into_iter().rev());
    }
}

/// Where expanded tokens go.
pub(crate) enum Sink<'o> {
    /// The preprocessed output.
    Out(&'o mut Output),
    /// A token list (macro arguments, `#if` and `#include` lines).
    Toks(&'o mut Vec<Tok>),
}

impl Sink<'_> {
    fn emit(&mut self, ctx: &Ctx, tok: Tok) {
        match self {
            Sink::Toks(v) => v.push(tok),
            Sink::Out(out) => match tok.origin {
                Origin::Src(lo, _) => out.push_verbatim(ctx.file, lo, tok.text(ctx.src)),
                Origin::Exp(lo, hi) => out.push_expansion(ctx.file, lo, hi, tok.text(ctx.src), tok.space_before),
            },
        }
    }
}

fn hidden(hide: &HideSet, id: u32) -> bool {
    hide.as_ref().is_some_and(|h| h.binary_search(&id).is_ok())
}

fn hs_union(a: &HideSet, b: &HideSet) -> HideSet {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => {
            let mut v: Vec<u32> = x.iter().chain(y.iter()).copied().collect();
            v.sort_unstable();
            v.dedup();
            Some(v.into())
        }
    }
}

fn hs_intersect(a: &HideSet, b: &HideSet) -> HideSet {
    let (Some(x), Some(y)) = (a, b) else {
        return None;
    };
    let v: Vec<u32> = x.iter().copied().filter(|i| y.binary_search(i).is_ok()).collect();
    (!v.is_empty()).then(|| v.into())
}

fn hs_with(a: &HideSet, id: u32) -> HideSet {
    hs_union(a, &Some(Rc::from([id].as_slice())))
}

/// A piece of a macro replacement before `##` is applied.
enum Piece {
    Toks { toks: Vec<Tok>, va: bool },
    Paste,
}

/// The expansion engine over a macro table.
#[derive(Default)]
pub(crate) struct Expander {
    /// The macros.
    pub table: MacroTable,
    /// Tokens produced since the current top-level use started.
    work: usize,
}

impl Expander {
    /// An engine with only the built-in macros defined.
    pub(crate) fn new() -> Self {
        Expander {
            table: MacroTable::new(),
            work: 0,
        }
    }

    /// Starts a fresh runaway budget (before expanding a directive line).
    pub(crate) fn reset_budget(&mut self) {
        self.work = 0;
    }

    /// Expands the ordinary text read through `cursor` into `out`, up to the next directive line.
    pub(crate) fn run_file(&mut self, ctx: &Ctx, cursor: &mut Cursor, out: &mut Output) -> Result<(), PpError> {
        let mut input = Input::file(cursor);
        // Plain source bytes not yet copied; copying runs instead of tokens keeps this fast.
        let mut run: Option<(u32, u32)> = None;
        let flush = |run: &mut Option<(u32, u32)>, out: &mut Output| {
            if let Some((lo, hi)) = run.take() {
                out.push_verbatim(ctx.file, lo, &ctx.src[lo as usize..hi as usize]);
            }
        };
        loop {
            let tok = match input.pending.pop() {
                Some(t) => t,
                None => {
                    // A new top-level use starts: reset the runaway budget.
                    self.work = 0;
                    let Some((kind, lo, hi)) = input.cursor.as_mut().and_then(|c| c.next_text()) else {
                        break;
                    };
                    if kind != Kind::Ident || self.table.lookup(&ctx.src[lo as usize..hi as usize]).is_none() {
                        match &mut run {
                            Some((_, end)) if *end == lo => *end = hi,
                            _ => {
                                flush(&mut run, out);
                                run = Some((lo, hi));
                            }
                        }
                        continue;
                    }
                    Tok::src(kind, lo, hi)
                }
            };
            flush(&mut run, out);
            self.step(ctx, tok, &mut input, &mut Sink::Out(out), 0)?;
        }
        flush(&mut run, out);
        Ok(())
    }

    /// Expands everything `input` yields into `sink`.
    fn run(&mut self, ctx: &Ctx, input: &mut Input, sink: &mut Sink, depth: usize) -> Result<(), PpError> {
        while let Some(tok) = input.next() {
            self.step(ctx, tok, input, sink, depth)?;
        }
        Ok(())
    }

    /// Expands `tok` if it is a macro use (pushing the result back onto `input`), else emits it.
    fn step(&mut self, ctx: &Ctx, tok: Tok, input: &mut Input, sink: &mut Sink, depth: usize) -> Result<(), PpError> {
        let id = if tok.kind == Kind::Ident {
            self.table.lookup(tok.text(ctx.src))
        } else {
            None
        };
        match id {
            Some(id) if !hidden(&tok.hide, id) => {
                if let Some(tok) = self.expand_use(ctx, id, tok, input, depth)? {
                    sink.emit(ctx, tok);
                }
            }
            _ => sink.emit(ctx, tok),
        }
        Ok(())
    }

    /// Fully expands a token list (macro arguments, `#if` lines).
    pub(crate) fn expand_list(&mut self, ctx: &Ctx, toks: Vec<Tok>, depth: usize) -> Result<Vec<Tok>, PpError> {
        let mut out = Vec::with_capacity(toks.len());
        self.run(ctx, &mut Input::tokens(toks), &mut Sink::Toks(&mut out), depth)?;
        Ok(out)
    }

    fn charge(&mut self, ctx: &Ctx, n: usize, name: &str, at: Origin) -> Result<(), PpError> {
        self.work += n.max(1);
        if self.work > MAX_WORK {
            let (lo, hi) = at.range();
            let mut site: String = ctx
                .src
                .get(lo as usize..hi as usize)
                .unwrap_or(name)
                .chars()
                .take(60)
                .collect();
            if site.is_empty() {
                site = name.to_string();
            }
            return Err(ctx.error(
                at,
                format!(
                    "the macro use `{site}` expands to more than {MAX_WORK} tokens; \
                     a macro probably expands recursively or exponentially — simplify it"
                ),
            ));
        }
        Ok(())
    }

    /// Expands the use of macro `id` named by `name`; pushes the result back onto `input` for
    /// rescanning. Returns the name token when it turns out not to be a use (function-like
    /// macro without `(`).
    fn expand_use(
        &mut self,
        ctx: &Ctx,
        id: u32,
        name: Tok,
        input: &mut Input,
        depth: usize,
    ) -> Result<Option<Tok>, PpError> {
        let Some(m) = self.table.get(id) else {
            return Ok(Some(name));
        };
        let mac_name = name.text(ctx.src).to_string();
        self.charge(ctx, 1, &mac_name, name.origin)?;
        let (nlo, nhi) = name.origin.range();
        if let Some(b) = m.builtin {
            let text = match b {
                Builtin::Line => ctx.lines.line_col(nlo).0.to_string(),
                Builtin::File => format!("\"{}\"", escape_str(&ctx.lines.path)),
            };
            let kind = if b == Builtin::Line { Kind::Number } else { Kind::Str };
            let mut t = Tok::own(kind, &text, Origin::Exp(nlo, nhi));
            t.space_before = name.space_before;
            input.push_front(vec![t]);
            return Ok(None);
        }
        let Some(params) = &m.params else {
            let hs = hs_with(&name.hide, id);
            let body = m.body.clone();
            self.charge(ctx, body.len(), &mac_name, name.origin)?;
            input.push_front(finish(body, Origin::Exp(nlo, nhi), &hs, name.space_before));
            return Ok(None);
        };
        // Function-like: only a use when `(` follows (possibly after whitespace and newlines).
        let mut skipped = Vec::new();
        loop {
            match input.next() {
                Some(t) if t.kind.is_blank() => skipped.push(t),
                Some(t) if t.is_punct(ctx.src, "(") => break,
                other => {
                    skipped.extend(other);
                    input.push_front(skipped);
                    return Ok(Some(name));
                }
            }
        }
        let mut newlines = Vec::new();
        for t in &skipped {
            line_breaks(t, ctx.src, &mut newlines);
        }
        let (mut args, rparen) =
            collect_args(ctx, input, params.len(), m.variadic, &mut newlines).ok_or_else(|| {
                ctx.error(
                    name.origin,
                    format!(
                        "unterminated call of macro `{mac_name}`: no matching `)` before the end \
                         of the file or the next directive line; close the argument list"
                    ),
                )
            })?;
        let (rlo, rhi) = rparen.origin.range();
        let use_site = Origin::Exp(nlo.min(rlo), nhi.max(rhi));
        check_arity(ctx, &mac_name, params.len(), m.variadic, &mut args, use_site)?;
        let hs = hs_with(&hs_intersect(&name.hide, &rparen.hide), id);
        let body = self.substitute(ctx, &m, &args, depth, use_site, &mac_name)?;
        self.charge(ctx, body.len(), &mac_name, use_site)?;
        let mut result = finish(body, use_site, &hs, name.space_before);
        // Line endings inside the use follow its expansion so later lines keep their numbers.
        result.extend(newlines);
        input.push_front(result);
        Ok(None)
    }

    /// Replaces parameters in `m`'s body by the arguments and applies `#` and `##`.
    fn substitute(
        &mut self,
        ctx: &Ctx,
        m: &Macro,
        args: &[Vec<Tok>],
        depth: usize,
        at: Origin,
        name: &str,
    ) -> Result<Vec<Tok>, PpError> {
        let body = &m.body;
        let is_paste = |k: usize| body.get(k).is_some_and(|t| t.is_punct("", "##"));
        let va_index = if m.variadic { args.len().checked_sub(1) } else { None };
        let va_empty = va_index.is_none_or(|v| args[v].is_empty());
        let mut pieces = Vec::new();
        let mut va_opt_closes: Vec<usize> = Vec::new();
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            if va_opt_closes.last() == Some(&i) {
                va_opt_closes.pop();
                i += 1;
                continue;
            }
            if t.is_punct("", "#") {
                if let Some(p) = m.param_of.get(i + 1).copied().flatten() {
                    let mut s = stringize(&args[p], ctx.src);
                    s.space_before = t.space_before;
                    pieces.push(Piece::Toks {
                        toks: vec![s],
                        va: false,
                    });
                    i += 2;
                    continue;
                }
            }
            if t.is_punct("", "##") {
                pieces.push(Piece::Paste);
                i += 1;
                continue;
            }
            if m.variadic
                && t.kind == Kind::Ident
                && t.text("") == "__VA_OPT__"
                && body.get(i + 1).is_some_and(|n| n.is_punct("", "("))
            {
                let close = matching_paren(body, i + 1).unwrap_or(body.len());
                if va_empty {
                    i = close + 1;
                } else {
                    va_opt_closes.push(close);
                    i += 2;
                }
                continue;
            }
            if let Some(p) = m.param_of[i] {
                let mut toks = if is_paste(i + 1) || (i > 0 && is_paste(i - 1)) {
                    args[p].clone()
                } else {
                    if depth >= MAX_ARG_DEPTH {
                        return Err(ctx.error(at, format!(
                            "macro arguments nested more than {MAX_ARG_DEPTH} levels deep while expanding `{name}`; simplify the nesting"
                        )));
                    }
                    self.expand_list(ctx, args[p].clone(), depth + 1)?
                };
                if let Some(first) = toks.first_mut() {
                    first.space_before = t.space_before;
                }
                pieces.push(Piece::Toks {
                    toks,
                    va: Some(p) == va_index,
                });
                i += 1;
                continue;
            }
            pieces.push(Piece::Toks {
                toks: vec![t.clone()],
                va: false,
            });
            i += 1;
        }
        Ok(apply_pastes(pieces, ctx.src))
    }
}

/// Gives substituted tokens their origin and hide set.
fn finish(mut toks: Vec<Tok>, origin: Origin, hs: &HideSet, space: bool) -> Vec<Tok> {
    for t in &mut toks {
        t.origin = origin;
        t.hide = hs_union(&t.hide, hs);
    }
    if let Some(first) = toks.first_mut() {
        first.space_before = space;
    }
    toks
}

/// Applies `##` between pieces; an empty piece is a placemarker. `, ## __VA_ARGS__` drops the
/// comma when the variadic argument is empty (GNU extension used by many kernels' logging macros).
fn apply_pastes(pieces: Vec<Piece>, src: &str) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::new();
    let mut last_empty = true;
    let mut it = pieces.into_iter().peekable();
    while let Some(p) = it.next() {
        match p {
            Piece::Toks { toks, .. } => {
                last_empty = toks.is_empty();
                out.extend(toks);
            }
            Piece::Paste => {
                let (rhs, va) = match it.peek() {
                    Some(Piece::Toks { .. }) => match it.next() {
                        Some(Piece::Toks { toks, va }) => (toks, va),
                        _ => (Vec::new(), false),
                    },
                    _ => (Vec::new(), false),
                };
                let lhs_comma = !last_empty && out.last().is_some_and(|t| t.is_punct(src, ","));
                if rhs.is_empty() {
                    if va && lhs_comma {
                        out.pop();
                    }
                } else if last_empty || (va && lhs_comma) {
                    out.extend(rhs);
                    last_empty = false;
                } else {
                    let Some(l) = out.pop() else { continue };
                    let mut rest = rhs.into_iter();
                    if let Some(r) = rest.next() {
                        out.extend(paste(l, r, src));
                    }
                    out.extend(rest);
                }
            }
        }
    }
    out
}

/// Pastes two tokens; when the result is not one token, both are kept unchanged.
fn paste(l: Tok, r: Tok, src: &str) -> Vec<Tok> {
    let joined = format!("{}{}", l.text(src), r.text(src));
    let toks = lex_all(&joined, 0);
    match toks.as_slice() {
        [one] if !one.kind.is_blank() => {
            let mut t = Tok::own(one.kind, &joined, l.origin);
            t.space_before = l.space_before;
            t.hide = l.hide;
            vec![t]
        }
        _ => vec![l, r],
    }
}

fn escape_str(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `#param`: the argument's spelling as a string literal.
fn stringize(arg: &[Tok], src: &str) -> Tok {
    let mut s = String::from("\"");
    for (k, t) in arg.iter().enumerate() {
        if k > 0 && t.space_before {
            s.push(' ');
        }
        let text = t.text(src);
        if matches!(t.kind, Kind::Str | Kind::Char) {
            s.push_str(&escape_str(text));
        } else {
            s.push_str(text);
        }
    }
    s.push('"');
    Tok::own(Kind::Str, &s, Origin::Exp(0, 0))
}

fn matching_paren(body: &[Tok], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in body.iter().enumerate().skip(open) {
        if t.is_punct("", "(") {
            depth += 1;
        } else if t.is_punct("", ")") {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Appends a token for each line ending inside the source token `t` (newlines, splices and
/// multi-line comments consumed by a macro call), so the output keeps the line count.
fn line_breaks(t: &Tok, src: &str, out: &mut Vec<Tok>) {
    let Origin::Src(lo, hi) = t.origin else {
        return;
    };
    let b = src.as_bytes();
    for i in lo as usize..(hi as usize).min(b.len()) {
        if b[i] == b'\n' {
            let start = if i > lo as usize && b[i - 1] == b'\r' { i - 1 } else { i };
            out.push(Tok::src(Kind::Newline, start as u32, i as u32 + 1));
        }
    }
}

/// Collects the arguments of a macro call after its `(`; `None` if the input ends first.
/// Whitespace becomes `space_before`; source line endings are kept in `newlines`.
fn collect_args(
    ctx: &Ctx,
    input: &mut Input,
    nparams: usize,
    variadic: bool,
    newlines: &mut Vec<Tok>,
) -> Option<(Vec<Vec<Tok>>, Tok)> {
    let mut args = Vec::new();
    let mut cur: Vec<Tok> = Vec::new();
    let mut depth = 0usize;
    let mut space = false;
    loop {
        let mut t = input.next()?;
        if t.kind.is_blank() {
            line_breaks(&t, ctx.src, newlines);
            space = true;
            continue;
        }
        if t.kind == Kind::Punct {
            match t.text(ctx.src) {
                "(" => depth += 1,
                ")" if depth == 0 => {
                    args.push(cur);
                    return Some((args, t));
                }
                ")" => depth -= 1,
                "," if depth == 0 && (!variadic || args.len() + 1 < nparams) => {
                    args.push(std::mem::take(&mut cur));
                    space = false;
                    continue;
                }
                _ => {}
            }
        }
        t.space_before = (space || t.space_before) && !cur.is_empty();
        space = false;
        cur.push(t);
    }
}

fn check_arity(
    ctx: &Ctx,
    name: &str,
    nparams: usize,
    variadic: bool,
    args: &mut Vec<Vec<Tok>>,
    at: Origin,
) -> Result<(), PpError> {
    if nparams == 0 && args.len() == 1 && args[0].is_empty() {
        args.clear();
    }
    if variadic && args.len() + 1 == nparams {
        args.push(Vec::new());
    }
    if args.len() == nparams {
        return Ok(());
    }
    let expected = if variadic {
        format!("at least {}", nparams - 1)
    } else {
        nparams.to_string()
    };
    Err(ctx.error(
        at,
        format!(
            "macro `{name}` expects {expected} argument(s) but the call passes {}; fix the call",
            args.len()
        ),
    ))
}
