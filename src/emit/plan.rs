//! From IR positions to text edits.
//!
//! Every insertion lands at an *anchor*: the end of the line where the statement (or the `{` of
//! the block) ends, or — when code follows on that line — a line break before that code.
//! Insertions sharing an anchor become consecutive lines in text order. A brace-less body
//! that receives a barrier is wrapped in braces; the wrap and everything inside it collapse
//! into one edit.

use super::edit::{apply_placed, Edit, EmitError, Fix, Insertion, Placed};
use super::text::{self, Rest, Style};
use autosync_oracle::ir::{Block, Kernel, Label, Loop, LoopKind, Span, Stmt, StmtKind};
use autosync_oracle::tree::Position;
use std::collections::{BTreeMap, HashMap};

/// Computes the edits that write `inserts` into `src`, the original text of file 0 of `k`.
pub fn plan(k: &Kernel, src: &str, inserts: &[Insertion]) -> Result<Fix, EmitError> {
    if inserts.is_empty() {
        return Ok(Fix::default());
    }
    let index = Index::new(k);
    let mut by_pos: HashMap<Position, Vec<&Insertion>> = HashMap::new();
    for ins in inserts {
        index.check(k, src, ins)?;
        by_pos.entry(ins.pos).or_default().push(ins);
    }
    let mut planner = Planner {
        src,
        style: Style::detect(src),
        by_pos,
        points: BTreeMap::new(),
        opens: Vec::new(),
        wraps: Vec::new(),
        seq: 0,
    };
    planner.block(&k.body, None)?;
    if let Some(pos) = planner.by_pos.keys().next() {
        return Err(EmitError::at(
            *pos,
            None,
            format!("{} is not reachable in the kernel body", describe(*pos)),
        ));
    }
    planner.finish()
}

/// `after L3` / `the start of block L3`.
fn describe(pos: Position) -> String {
    match pos {
        Position::After(l) => format!("the position after L{}", l.0),
        Position::BlockStart(l) => format!("the start of block L{}", l.0),
    }
}

/// `path:line:col` of a span, without trusting the span to name a known file.
fn loc(k: &Kernel, span: Span) -> String {
    if span.is_dummy() {
        return "<synthesized>".into();
    }
    match k.files.get(span.file.0 as usize) {
        Some(f) => {
            let (l, c) = f.line_col(span.lo);
            format!("{}:{}:{}", f.path, l, c)
        }
        None => format!("<file {}>", span.file.0),
    }
}

/// Whether a span is real, in file 0, and lies on character boundaries of `src`.
fn span_ok(src: &str, span: Span) -> bool {
    let (lo, hi) = (span.lo as usize, span.hi as usize);
    !span.is_dummy()
        && span.file.0 == 0
        && lo <= hi
        && hi <= src.len()
        && src.is_char_boundary(lo)
        && src.is_char_boundary(hi)
}

/// What a label names.
#[derive(Clone, Copy)]
enum Node<'k> {
    Block(&'k Block),
    Stmt(&'k Stmt),
}

/// Every label of the kernel, including loop header and step statements.
struct Index<'k> {
    nodes: HashMap<Label, Node<'k>>,
}

impl<'k> Index<'k> {
    fn new(k: &'k Kernel) -> Self {
        let mut ix = Index { nodes: HashMap::new() };
        ix.block(&k.body);
        ix
    }

    fn block(&mut self, b: &'k Block) {
        self.nodes.insert(b.label, Node::Block(b));
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'k Stmt) {
        self.nodes.insert(s.label, Node::Stmt(s));
        match &s.kind {
            StmtKind::If { then_blk, else_blk, .. } => {
                self.block(then_blk);
                self.block(else_blk);
            }
            StmtKind::Loop(Loop { header, body, step, .. }) => {
                header.iter().for_each(|h| self.stmt(h));
                self.block(body);
                step.iter().for_each(|h| self.stmt(h));
            }
            _ => {}
        }
    }

    /// Rejects positions that cannot be written into `src`.
    fn check(&self, k: &Kernel, src: &str, ins: &Insertion) -> Result<(), EmitError> {
        let pos = ins.pos;
        let l = pos.label();
        if ins.text.text().trim().is_empty() {
            return Err(EmitError::at(pos, None, "the barrier text is empty"));
        }
        let (span, allowed, what) = match (pos, self.nodes.get(&l)) {
            (_, None) => {
                return Err(EmitError::at(
                    pos,
                    None,
                    format!("no statement or block L{} in kernel `{}`", l.0, k.name),
                ))
            }
            (Position::After(_), Some(Node::Block(b))) => {
                return Err(EmitError::at(
                    pos,
                    Some(b.span),
                    format!("L{} is a block; only statements have an after-position", l.0),
                ))
            }
            (Position::BlockStart(_), Some(Node::Stmt(s))) => {
                return Err(EmitError::at(
                    pos,
                    Some(s.span),
                    format!("L{} is a statement, not a block", l.0),
                ))
            }
            (Position::After(_), Some(Node::Stmt(s))) => (s.span, s.emit_after, "statement"),
            (Position::BlockStart(_), Some(Node::Block(b))) => (b.span, b.emit_start, "block"),
        };
        if span.is_dummy() {
            return Err(EmitError::at(
                pos,
                None,
                format!("{} has no source text (the {what} was synthesized)", describe(pos)),
            ));
        }
        if span.file.0 != 0 {
            return Err(EmitError::at(
                pos,
                Some(span),
                format!(
                    "{} lies in an included file ({}); autosync only edits the main file",
                    describe(pos),
                    loc(k, span)
                ),
            ));
        }
        if !allowed {
            return Err(EmitError::at(
                pos,
                Some(span),
                format!(
                    "no barrier can be written at {} ({}): the {what} was made by lowering \
                     or comes from an inlined function",
                    describe(pos),
                    loc(k, span)
                ),
            ));
        }
        if !span_ok(src, span) {
            return Err(EmitError::at(
                pos,
                Some(span),
                format!(
                    "the span of L{} ({}..{}) does not fit the source text; was the file \
                     changed after it was read?",
                    l.0, span.lo, span.hi
                ),
            ));
        }
        if let Some(Node::Block(b)) = self.nodes.get(&l) {
            if b.braced && !src[b.span.lo as usize..].starts_with('{') {
                return Err(EmitError::at(
                    pos,
                    Some(span),
                    format!(
                        "block L{} at {} does not start with `{{` in the source (a macro?)",
                        l.0,
                        loc(k, span)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// One new line of text (with its indentation).
#[derive(Clone, Debug)]
struct Line {
    text: String,
    /// Whether this line is the `}` closing a brace-less body wrapped by emission.
    closes: bool,
    /// Whether this line is the first of a barrier statement.
    starts: bool,
}

/// Appends `lines` to `ins`, each after `eol` (`eol_first`) or before it, noting where each
/// barrier statement starts; `origin` is where the edit goes in the original text.
fn push_lines(ins: &mut String, placed: &mut Vec<Placed>, lines: &[Line], eol: &str, eol_first: bool, origin: usize) {
    for l in lines {
        if eol_first {
            ins.push_str(eol);
        }
        if l.starts {
            placed.push(Placed { at: ins.len(), origin });
        }
        ins.push_str(&l.text);
        if !eol_first {
            ins.push_str(eol);
        }
    }
}

/// New lines gathered at one anchor.
struct Point {
    rest: Rest,
    seq: usize,
    lines: Vec<Line>,
}

/// A brace-less body being wrapped in braces.
struct Wrap {
    /// Offset of the edit that opens the brace.
    open_offset: usize,
    /// Indentation of lines inside the braces.
    inner: String,
    /// Indentation of the closing brace (the owning statement's).
    outer: String,
}

/// Walks the kernel in text order, collecting anchors, brace openings and wrapped bodies.
struct Planner<'s, 'i> {
    src: &'s str,
    style: Style,
    by_pos: HashMap<Position, Vec<&'i Insertion>>,
    /// Anchors by edit offset.
    points: BTreeMap<usize, Point>,
    /// Edits opening wrapped bodies, with their creation order.
    opens: Vec<(usize, Edit)>,
    /// (open offset, close anchor offset) of every wrapped body.
    wraps: Vec<(usize, usize)>,
    seq: usize,
}

impl<'s, 'i> Planner<'s, 'i> {
    fn next_seq(&mut self) -> usize {
        self.seq += 1;
        self.seq
    }

    fn take(&mut self, pos: Position) -> Vec<&'i Insertion> {
        self.by_pos.remove(&pos).unwrap_or_default()
    }

    /// Walks a block in text order, recording anchors and wraps.
    fn block(&mut self, b: &Block, owner: Option<&Stmt>) -> Result<(), EmitError> {
        let starts = self.take(Position::BlockStart(b.label));
        let wrap = !b.braced
            && b.emit_start
            && (!starts.is_empty()
                || b.stmts
                    .iter()
                    .any(|s| self.by_pos.contains_key(&Position::After(s.label))));
        let wrap = if wrap {
            Some(self.open_wrap(b, owner, &starts)?)
        } else {
            None
        };
        // Indentation of new lines in this block, computed only when a line needs it.
        let mut inner: Option<String> = wrap.as_ref().map(|w| w.inner.clone());
        if wrap.is_none() && !starts.is_empty() {
            // Checked: a block start position of a block that is not wrapped is braced.
            let rest = text::rest_of_line(self.src, b.span.lo as usize + 1);
            let lines = render_lines(&starts, inner.get_or_insert_with(|| self.block_indent(b)));
            self.add_point(rest, lines);
        }
        for (i, s) in b.stmts.iter().enumerate() {
            self.children(s)?;
            let afters = self.take(Position::After(s.label));
            let Some(first) = afters.first() else {
                continue;
            };
            let pos = first.pos;
            let (lo, hi) = (s.span.lo as usize, s.span.hi as usize);
            if let Some(next) = b.stmts[i + 1..]
                .iter()
                .find(|n| span_ok(self.src, n.span) && (n.span.lo as usize) < hi && (n.span.hi as usize) > lo)
            {
                return Err(EmitError::at(
                    pos,
                    Some(s.span),
                    format!(
                        "{} is inside the source text of the next statement (L{}); \
                         both come from one macro use or expression",
                        describe(pos),
                        next.label.0
                    ),
                ));
            }
            if wrap.is_some() && s.span.hi != b.span.hi {
                return Err(EmitError::at(
                    pos,
                    Some(s.span),
                    format!(
                        "{} is in the middle of a brace-less body's only statement",
                        describe(pos)
                    ),
                ));
            }
            let indent = if text::starts_line(self.src, lo) {
                text::indent_of(self.src, lo).to_string()
            } else {
                inner.get_or_insert_with(|| self.block_indent(b)).clone()
            };
            let rest = text::rest_of_line(self.src, hi);
            let lines = render_lines(&afters, &indent);
            self.add_point(rest, lines);
        }
        if let Some(w) = wrap {
            let rest = text::rest_of_line(self.src, b.span.hi as usize);
            let close = Line {
                text: format!("{}}}", w.outer),
                closes: true,
                starts: false,
            };
            let key = self.add_point(rest, vec![close]);
            self.wraps.push((w.open_offset, key));
        }
        Ok(())
    }

    fn children(&mut self, s: &Stmt) -> Result<(), EmitError> {
        match &s.kind {
            StmtKind::If { then_blk, else_blk, .. } => {
                self.block(then_blk, Some(s))?;
                self.block(else_blk, Some(s))
            }
            StmtKind::Loop(Loop { body, .. }) => self.block(body, Some(s)),
            _ => Ok(()),
        }
    }

    /// Indentation of a barrier line at the start of (or between statements of) block `b`.
    fn block_indent(&self, b: &Block) -> String {
        let src = self.src;
        if b.braced && span_ok(src, b.span) && src[b.span.lo as usize..].starts_with('{') {
            let open = b.span.lo as usize;
            let mut c = text::next_code(src, open + 1);
            // Preprocessor lines (`#pragma unroll`) are often not indented like the code.
            while c < src.len() && src.as_bytes()[c] == b'#' && text::starts_line(src, c) {
                let eol = src[c..].find('\n').map_or(src.len(), |n| c + n);
                c = text::next_code(src, eol);
            }
            if c < src.len() && src.as_bytes()[c] != b'}' && !text::same_line(src, open, c) {
                return text::indent_of(src, c).to_string();
            }
            return format!("{}{}", text::indent_of(src, open), self.style.unit);
        }
        for s in &b.stmts {
            if span_ok(src, s.span) && text::starts_line(src, s.span.lo as usize) {
                return text::indent_of(src, s.span.lo as usize).to_string();
            }
        }
        if span_ok(src, b.span) {
            return format!("{}{}", text::indent_of(src, b.span.lo as usize), self.style.unit);
        }
        self.style.unit.clone()
    }

    /// Opens the braces of a brace-less body: `{` after the header, or on its own line before
    /// the body when the header line ends in a comment or is a preprocessor line.
    fn open_wrap(&mut self, b: &Block, owner: Option<&Stmt>, starts: &[&Insertion]) -> Result<Wrap, EmitError> {
        let src = self.src;
        if !span_ok(src, b.span) {
            let pos = starts.first().map(|i| i.pos).unwrap_or(Position::BlockStart(b.label));
            return Err(EmitError::at(
                pos,
                Some(b.span),
                format!(
                    "the brace-less body L{} has no usable source text to add braces to",
                    b.label.0
                ),
            ));
        }
        if let Some(o) = owner.filter(|o| !written_out(src, o, b)) {
            let pos = starts.first().map(|i| i.pos).unwrap_or(Position::BlockStart(b.label));
            return Err(EmitError::at(
                pos,
                Some(o.span),
                format!(
                    "the brace-less body L{} comes from a macro, so braces cannot be added \
                     around it; write the braces in the source",
                    b.label.0
                ),
            ));
        }
        let eol = self.style.eol;
        let body = b.span.lo as usize;
        let outer = owner
            .filter(|o| span_ok(src, o.span))
            .map_or(text::indent_of(src, body), |o| text::indent_of(src, o.span.lo as usize))
            .to_string();
        let gap = text::ws_before(src, body);
        let seq = self.next_seq();
        if text::same_line(src, gap, body) {
            // `if (c) x = 1;` → the body moves to its own line inside the braces.
            let inner = format!("{outer}{}", self.style.unit);
            let mut ins = " {".to_string();
            let mut placed = Vec::new();
            push_lines(&mut ins, &mut placed, &render_lines(starts, &inner), eol, true, gap);
            ins.push_str(eol);
            ins.push_str(&inner);
            self.opens.push((
                seq,
                Edit {
                    offset: gap,
                    delete: body - gap,
                    insert: ins,
                    barriers: placed,
                },
            ));
            return Ok(Wrap {
                open_offset: gap,
                inner,
                outer,
            });
        }
        let body_indent = text::indent_of(src, body);
        let inner = if body_indent.len() > outer.len() {
            body_indent.to_string()
        } else {
            format!("{outer}{}", self.style.unit)
        };
        let header_line = &src[text::line_start(src, gap)..gap];
        let header_safe = gap > 0
            && !header_line.contains("//")
            && !header_line.contains("/*")
            && !header_line.contains("*/")
            && !header_line.trim_start().starts_with('#');
        let lines = render_lines(starts, &inner);
        let mut placed = Vec::new();
        let (offset, ins) = if header_safe {
            let mut ins = " {".to_string();
            push_lines(&mut ins, &mut placed, &lines, eol, true, gap);
            (gap, ins)
        } else {
            let offset = text::line_start(src, body);
            let mut ins = format!("{outer}{{{eol}");
            push_lines(&mut ins, &mut placed, &lines, eol, false, offset);
            (offset, ins)
        };
        self.opens.push((
            seq,
            Edit {
                offset,
                delete: 0,
                insert: ins,
                barriers: placed,
            },
        ));
        Ok(Wrap {
            open_offset: offset,
            inner,
            outer,
        })
    }

    /// Adds lines at the anchor described by `rest`; returns the anchor's edit offset.
    fn add_point(&mut self, rest: Rest, lines: Vec<Line>) -> usize {
        let key = match rest {
            Rest::LineEnd { at } => at,
            Rest::Code { trim_from, .. } => trim_from,
        };
        let seq = self.next_seq();
        self.points
            .entry(key)
            .or_insert(Point {
                rest,
                seq,
                lines: Vec::new(),
            })
            .lines
            .extend(lines);
        key
    }

    fn render_point(&self, p: &Point) -> Edit {
        let (src, eol) = (self.src, self.style.eol);
        let origin = match p.rest {
            Rest::LineEnd { at } => at,
            Rest::Code { trim_from, .. } => trim_from,
        };
        let mut ins = String::new();
        let mut placed = Vec::new();
        push_lines(&mut ins, &mut placed, &p.lines, eol, true, origin);
        match p.rest {
            Rest::LineEnd { at } => Edit {
                offset: at,
                delete: 0,
                insert: ins,
                barriers: placed,
            },
            Rest::Code { trim_from, code } => {
                let last = p.lines.last();
                let closes = last.is_some_and(|l| l.closes);
                if closes
                    && (text::starts_with_keyword(src, code, "else") || text::starts_with_keyword(src, code, "while"))
                {
                    // `} else` / `} while (c);`
                    ins.push(' ');
                } else {
                    let indent = if src.as_bytes()[code] == b'}' {
                        text::indent_of(src, trim_from)
                    } else {
                        let t = last.map_or("", |l| l.text.as_str());
                        &t[..t.len() - t.trim_start_matches([' ', '\t']).len()]
                    };
                    ins.push_str(eol);
                    ins.push_str(indent);
                }
                Edit {
                    offset: trim_from,
                    delete: code - trim_from,
                    insert: ins,
                    barriers: placed,
                }
            }
        }
    }

    /// Orders and merges the edits, collapses each wrapped body into one edit, and checks
    /// that the result is a valid fix.
    fn finish(self) -> Result<Fix, EmitError> {
        let mut all: Vec<(usize, Edit)> = self.opens.clone();
        all.extend(self.points.values().map(|p| (p.seq, self.render_point(p))));
        all.sort_by_key(|(seq, e)| (e.offset, *seq));
        let mut edits: Vec<Edit> = Vec::with_capacity(all.len());
        for (_, e) in all {
            match edits.last_mut() {
                Some(prev) if prev.offset == e.offset => {
                    let shift = prev.insert.len();
                    prev.barriers
                        .extend(e.barriers.iter().map(|b| Placed { at: shift + b.at, ..*b }));
                    prev.insert.push_str(&e.insert);
                    prev.delete = prev.delete.max(e.delete);
                }
                _ => edits.push(e),
            }
        }
        // Inner wraps first; an outer wrap then absorbs the collapsed inner edit.
        let mut wraps = self.wraps.clone();
        wraps.sort_by_key(|&(open, close)| close - open);
        for (open, close) in wraps {
            let first = edits.iter().position(|e| e.offset >= open);
            let last = edits.iter().rposition(|e| e.offset <= close);
            let (Some(first), Some(last)) = (first, last) else {
                return Err(internal("a wrapped body lost its edits"));
            };
            if first > last || edits[first].offset != open {
                return Err(internal("a wrapped body lost its opening edit"));
            }
            let end = edits[first..=last]
                .iter()
                .map(|e| e.offset + e.delete)
                .max()
                .unwrap_or(open);
            if end > self.src.len() {
                return Err(internal("a wrapped body runs past the end of the text"));
            }
            let inner = Fix {
                edits: edits[first..=last]
                    .iter()
                    .map(|e| Edit {
                        offset: e.offset - open,
                        ..e.clone()
                    })
                    .collect(),
            };
            let (insert, barriers) = apply_placed(&self.src[open..end], &inner);
            let merged = Edit {
                offset: open,
                delete: end - open,
                insert,
                barriers,
            };
            edits.splice(first..=last, [merged]);
        }
        let mut cursor = 0;
        for e in &edits {
            let end = e.offset + e.delete;
            if e.offset < cursor
                || end > self.src.len()
                || !self.src.is_char_boundary(e.offset)
                || !self.src.is_char_boundary(end)
            {
                return Err(internal("edits overlap or leave the text"));
            }
            cursor = end.max(e.offset + 1);
        }
        Ok(Fix { edits })
    }
}

/// Whether the statement owning brace-less body `b` is spelled out in the source (starts with
/// its keyword and precedes the body) rather than produced by a macro use.
fn written_out(src: &str, owner: &Stmt, b: &Block) -> bool {
    let keyword = match &owner.kind {
        StmtKind::If { .. } => "if",
        StmtKind::Loop(Loop {
            kind: LoopKind::For, ..
        }) => "for",
        StmtKind::Loop(Loop {
            kind: LoopKind::While, ..
        }) => "while",
        StmtKind::Loop(Loop {
            kind: LoopKind::DoWhile,
            ..
        }) => "do",
        _ => return false,
    };
    span_ok(src, owner.span)
        && owner.span.lo < b.span.lo
        && text::starts_with_keyword(src, owner.span.lo as usize, keyword)
}

fn internal(what: &str) -> EmitError {
    EmitError {
        pos: None,
        span: None,
        message: format!("internal error in emission: {what}"),
    }
}

/// The barrier statements (and optional comments) of `ins`, indented by `indent`.
fn render_lines(ins: &[&Insertion], indent: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for i in ins {
        let start = out.len();
        for l in i.text.text().trim().lines() {
            let l = l.trim_end();
            let text = if l.is_empty() {
                String::new()
            } else {
                format!("{indent}{l}")
            };
            out.push(Line {
                text,
                closes: false,
                starts: out.len() == start,
            });
        }
        let comment = i
            .comment
            .as_deref()
            .map(|c| c.replace(['\r', '\n'], " "))
            .filter(|c| !c.trim().is_empty());
        if let (Some(c), Some(last)) = (comment, out[start..].last_mut()) {
            last.text.push_str(" // ");
            last.text.push_str(c.trim());
        }
    }
    out
}
