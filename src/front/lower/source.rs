//! Source files and spans: Clang's locations turned into IR [`Span`]s of the original files,
//! statement ends that include their `;`, and the text of a node (for inline asm).

use crate::front::ast::{Ast, FileIdx, Loc, NodeId, NodeKind, Pos};
use crate::front::clang::preprocess::Preprocessed;
use crate::front::clang::STDIN_NAME;
use autosync_oracle::ir::{FileId, SourceFile, Span};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The files spans refer to: the main file is `FileId(0)`; user headers get ids when first
/// referenced.
pub struct SourceMap<'a> {
    ast: &'a Ast,
    main_path: PathBuf,
    main_text: &'a str,
    inner: RefCell<Inner>,
    /// Runs Clang's preprocessor on the file, for asm text a macro builds.
    preprocessor: Option<&'a dyn Fn() -> Option<Preprocessed>>,
    preprocessed: OnceCell<Option<Preprocessed>>,
    /// Asm statements by the (file, line) their first token expands at, in source order.
    asm_lines: OnceCell<AsmLines>,
    /// Places in headers where Clang refused an asm statement's text, with its message: a
    /// kernel that reaches one is not read (the statement may be gone from the AST).
    broken_asm: RefCell<Vec<(FileIdx, u32, String)>>,
}

/// Asm statements by the (file, line) their first token expands at, each with its rank there.
type AsmLines = HashMap<(FileIdx, u32), Vec<(usize, NodeId)>>;

#[derive(Default)]
struct Inner {
    /// AST file → IR file (user files only).
    ids: HashMap<FileIdx, FileId>,
    /// IR files: display path and text.
    files: Vec<(String, String)>,
    /// Texts of any file read for asm statements, by AST file.
    raw: HashMap<FileIdx, Option<String>>,
}

impl<'a> SourceMap<'a> {
    /// The map for a translation unit whose main file is `main_path` with `main_text`.
    pub fn new(ast: &'a Ast, main_path: &Path, main_text: &'a str) -> SourceMap<'a> {
        let inner = Inner {
            files: vec![(main_path.display().to_string(), main_text.to_string())],
            ..Default::default()
        };
        SourceMap {
            ast,
            main_path: main_path.to_path_buf(),
            main_text,
            inner: RefCell::new(inner),
            preprocessor: None,
            preprocessed: OnceCell::new(),
            asm_lines: OnceCell::new(),
            broken_asm: RefCell::default(),
        }
    }

    /// The map, with a way to have the file preprocessed (run at most once, when needed).
    pub fn with_preprocessor(mut self, run: Option<&'a dyn Fn() -> Option<Preprocessed>>) -> SourceMap<'a> {
        self.preprocessor = run;
        self
    }

    /// Whether an AST file is the main file.
    pub fn is_main(&self, f: FileIdx) -> bool {
        self.ast.files[f.0 as usize].name == STDIN_NAME
    }

    /// The IR file of an AST file (`None` for system headers and unreadable files).
    pub fn file_id(&self, f: FileIdx) -> Option<FileId> {
        if self.is_main(f) {
            return Some(FileId(0));
        }
        let info = &self.ast.files[f.0 as usize];
        if info.system {
            return None;
        }
        let mut inner = self.inner.borrow_mut();
        if let Some(id) = inner.ids.get(&f) {
            return Some(*id);
        }
        let text = std::fs::read(info.text_path())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())?;
        let id = FileId(inner.files.len() as u32);
        inner.files.push((display_path(&info.name), text));
        inner.ids.insert(f, id);
        Some(id)
    }

    /// The text of any file Clang named (system headers included), for asm statements.
    pub fn raw_text(&self, f: FileIdx) -> Option<String> {
        if self.is_main(f) {
            return Some(self.main_text.to_string());
        }
        let mut inner = self.inner.borrow_mut();
        inner
            .raw
            .entry(f)
            .or_insert_with(|| std::fs::read_to_string(self.ast.files[f.0 as usize].text_path()).ok())
            .clone()
    }

    /// Records that Clang refused the asm text at `line:col` of the header it names `file`;
    /// false when no file of the AST has that name.
    pub fn add_broken_asm(&self, file: &str, line: u32, col: u32, message: &str) -> bool {
        let Some(f) = self.ast.files.iter().position(|x| x.name == file) else {
            return false;
        };
        let f = FileIdx(f as u32);
        let Some(text) = self.raw_text(f) else { return false };
        let Some(start) = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .nth(line.saturating_sub(1) as usize)
        else {
            return false;
        };
        let at = (start + col.saturating_sub(1) as usize) as u32;
        self.broken_asm.borrow_mut().push((f, at, message.to_string()));
        true
    }

    /// A refused asm statement's place inside `n` and not inside any child of `n` other than
    /// an asm statement (so: the statement `n` holds, or held before Clang dropped it).
    pub fn broken_asm_in(&self, n: NodeId) -> Option<(Span, String)> {
        let broken = self.broken_asm.borrow();
        if broken.is_empty() {
            return None;
        }
        let inside = |m: NodeId, f: FileIdx, at: u32| {
            self.ast.node(m).range.is_some_and(|r| {
                let (b, e) = (r.begin.expansion, r.end.expansion);
                b.file == f && e.file == f && b.offset <= at && at <= e.offset + e.tok_len
            })
        };
        broken.iter().find_map(|(f, at, msg)| {
            let direct = inside(n, *f, *at)
                && !self
                    .ast
                    .children(n)
                    .any(|c| inside(c, *f, *at) && self.ast.kind(c) != NodeKind::GCCAsmStmt);
            let pos = Pos {
                file: *f,
                offset: *at,
                tok_len: 1,
            };
            direct.then(|| (self.pos_span(pos), msg.clone()))
        })
    }

    /// The text of an IR file.
    pub fn text(&self, f: FileId) -> Option<String> {
        if f.0 == 0 {
            return Some(self.main_text.to_string());
        }
        self.inner.borrow().files.get(f.0 as usize).map(|x| x.1.clone())
    }

    /// The files for `Kernel::files` and `SourceUnit::texts`.
    pub fn files(&self) -> (Vec<SourceFile>, Vec<String>) {
        let inner = self.inner.borrow();
        let files = inner.files.iter().map(|(p, t)| SourceFile::new(p.clone(), t)).collect();
        let texts = inner.files.iter().map(|(_, t)| t.clone()).collect();
        (files, texts)
    }

    /// The main file's path.
    pub fn main_path(&self) -> &Path {
        &self.main_path
    }

    /// The span of a position (its token), in the file where it is expanded.
    pub fn pos_span(&self, p: Pos) -> Span {
        match self.file_id(p.file) {
            Some(f) => Span::new(f, p.offset, p.offset + p.tok_len.max(1)),
            None => Span::DUMMY,
        }
    }

    /// The span of a node: from the expansion of its first token to the end of its last token
    /// (for a token from a macro body, the end of the macro invocation).
    pub fn node_span(&self, n: NodeId) -> Span {
        let Some(r) = self.ast.node(n).range else {
            return match self.ast.node(n).loc {
                Some(l) => self.pos_span(l.expansion),
                None => Span::DUMMY,
            };
        };
        let (b, e) = (r.begin.expansion, r.end.expansion);
        if b.file != e.file {
            return self.pos_span(b);
        }
        let Some(f) = self.file_id(b.file) else {
            return Span::DUMMY;
        };
        let end = self.token_end(&r.end);
        Span::new(f, b.offset, end.max(b.offset + 1))
    }

    /// The byte after the token at `l` in its expansion file: after the whole macro
    /// invocation when the token comes from a macro body.
    pub fn token_end(&self, l: &Loc) -> u32 {
        let e = l.expansion;
        let end = e.offset + e.tok_len;
        if !l.in_macro_body() {
            return end;
        }
        // The expansion location is the macro name: a function-like macro's arguments follow.
        let Some(text) = self.raw_text(e.file) else { return end };
        let bytes = text.as_bytes();
        let mut i = skip_space(bytes, end as usize);
        if bytes.get(i) == Some(&b'(') {
            if let Some(close) = matching_paren(bytes, i) {
                i = close + 1;
                return i as u32;
            }
        }
        end
    }

    /// The span of a statement including its terminating `;`.
    pub fn stmt_span(&self, n: NodeId) -> Span {
        let s = self.node_span(n);
        if s.is_dummy() {
            return s;
        }
        let end = self.stmt_end(n).unwrap_or(s.hi);
        Span::new(s.file, s.lo, end.max(s.hi))
    }

    /// Where a statement ends in the source (after its `;` or `}`).
    fn stmt_end(&self, n: NodeId) -> Option<u32> {
        let ast = self.ast;
        let kind = ast.kind(n);
        let last_child = || ast.node(n).inner.iter().rev().flatten().next().copied();
        match kind {
            NodeKind::CompoundStmt => Some(self.node_span(n).hi),
            NodeKind::IfStmt
            | NodeKind::ForStmt
            | NodeKind::WhileStmt
            | NodeKind::CXXForRangeStmt
            | NodeKind::SwitchStmt
            | NodeKind::CaseStmt
            | NodeKind::DefaultStmt
            | NodeKind::LabelStmt
            | NodeKind::AttributedStmt => last_child().and_then(|c| self.stmt_end(c)),
            NodeKind::DeclStmt => {
                let s = self.node_span(n);
                let text = self.text(s.file)?;
                if text.as_bytes().get(s.hi as usize - 1) == Some(&b';') {
                    Some(s.hi)
                } else {
                    self.semicolon_after(s)
                }
            }
            NodeKind::NullStmt => Some(self.node_span(n).hi),
            _ => self.semicolon_after(self.node_span(n)),
        }
    }

    /// The byte after the first `;` following `s` (skipping space and comments).
    fn semicolon_after(&self, s: Span) -> Option<u32> {
        let text = self.text(s.file)?;
        let b = text.as_bytes();
        let i = skip_space(b, s.hi as usize);
        (b.get(i) == Some(&b';')).then_some(i as u32 + 1)
    }

    /// Whether a statement's end lies in a user file, outside any macro body (or at the end
    /// of a whole macro invocation that produced nothing else): a barrier may be written after it.
    pub fn end_is_writable(&self, n: NodeId, next_sibling: Option<NodeId>) -> bool {
        let Some(r) = self.ast.node(n).range else { return false };
        // Statements of included user files are positions too: emission refuses to edit them
        // and says so.
        let user = |f: FileIdx| !self.ast.files[f.0 as usize].system;
        if !user(r.begin.expansion.file) || r.begin.expansion.file != r.end.expansion.file {
            return false;
        }
        if !r.end.in_macro_body() {
            return true;
        }
        // The statement ends inside a macro: fine if the next statement does not come from
        // the same invocation.
        match next_sibling.and_then(|s| self.ast.node(s).range) {
            Some(nr) => !(nr.begin.in_macro_body() && nr.begin.expansion.offset == r.end.expansion.offset),
            None => true,
        }
    }

    /// The text a node spans, read from where its tokens are spelled (inside a macro
    /// definition when the node comes from one).
    pub fn spelled_text(&self, n: NodeId) -> Option<String> {
        let r = self.ast.node(n).range?;
        let (b, e) = match (r.begin.spelling, r.end.spelling) {
            (Some(b), Some(e)) if !r.begin.macro_arg && !r.end.macro_arg => (b, e),
            _ => (r.begin.expansion, r.end.expansion),
        };
        if b.file != e.file {
            return None;
        }
        let text = self.raw_text(b.file)?;
        text.get(b.offset as usize..(e.offset + e.tok_len) as usize)
            .map(str::to_string)
    }
}

impl SourceMap<'_> {
    /// The text of an asm statement as Clang's preprocessor expanded it: for a statement whose
    /// template a macro builds. The statement is found on the output line that stands for the
    /// line where its first token expands, by its rank among the asm statements expanded there.
    pub fn expanded_asm_text(&self, n: NodeId) -> Option<String> {
        let begin = self.ast.node(n).range?.begin;
        let file = begin.expansion.file;
        let line = self.line_of(file, begin.expansion.offset)?;
        let rank = self.asm_lines().get(&(file, line))?.iter().find(|x| x.1 == n)?.0;
        let pre = self
            .preprocessed
            .get_or_init(|| self.preprocessor.and_then(|run| run()));
        let window = pre.as_ref()?.from_line(&self.ast.files[file.0 as usize].name, line)?;
        let at = asm_keywords(window).into_iter().nth(rank)?;
        Some(window[at..].to_string())
    }

    /// Each asm statement's rank among the distinct asm statements expanded on its line (a
    /// template's statement and its instantiations' copies share one location and one rank).
    fn asm_lines(&self) -> &AsmLines {
        self.asm_lines.get_or_init(|| {
            // (file, line) → (expansion offset, spelling offset, node).
            type Ranked = Vec<(u32, u32, NodeId)>;
            let mut by_line: HashMap<(FileIdx, u32), Ranked> = HashMap::new();
            for (i, node) in self.ast.nodes.iter().enumerate() {
                let (NodeKind::GCCAsmStmt, Some(r)) = (node.kind, node.range) else {
                    continue;
                };
                let e = r.begin.expansion;
                let Some(line) = self.line_of(e.file, e.offset) else {
                    continue;
                };
                let spelled = r.begin.spelling.map_or(0, |s| s.offset);
                by_line
                    .entry((e.file, line))
                    .or_default()
                    .push((e.offset, spelled, i as NodeId));
            }
            by_line
                .into_iter()
                .map(|(k, mut v)| {
                    v.sort();
                    let mut ranked = Vec::with_capacity(v.len());
                    let mut rank = 0;
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 && (v[i - 1].0, v[i - 1].1) != (x.0, x.1) {
                            rank += 1;
                        }
                        ranked.push((rank, x.2));
                    }
                    (k, ranked)
                })
                .collect()
        })
    }

    /// The 1-based line of a byte offset.
    fn line_of(&self, f: FileIdx, offset: u32) -> Option<u32> {
        let text = self.raw_text(f)?;
        let before = text.as_bytes().get(..offset as usize)?;
        Some(1 + before.iter().filter(|&&b| b == b'\n').count() as u32)
    }
}

/// Where each `asm`/`__asm`/`__asm__` keyword of `text` starts (string literals skipped).
fn asm_keywords(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c if ident(c) => {
                let start = i;
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                if matches!(&text[start..i], "asm" | "__asm" | "__asm__") {
                    out.push(start);
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// A header's name as shown to users (Clang prints `./inc/x.h` for relative includes).
fn display_path(name: &str) -> String {
    name.strip_prefix("./").unwrap_or(name).to_string()
}

/// Skips spaces and C/C++ comments.
fn skip_space(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && (b[i] as char).is_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i = (i + 2).min(b.len());
        } else {
            return i;
        }
    }
}

/// The index of the `)` matching the `(` at `open` (strings and comments skipped).
pub fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') || b.get(i + 1) == Some(&b'*') => {
                i = skip_space(b, i);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}
