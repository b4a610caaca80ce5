//! The label tree: for every label, its enclosing blocks, loops and conditionals, and the
//! post-order text order. Candidate barrier positions and their IR edits live here too.

use crate::ir::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What kind of compound statement encloses a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScopeKind {
    /// The kernel body.
    Root,
    /// The then-branch of an `if`.
    Then,
    /// The else-branch of an `if`.
    Else,
    /// A loop body.
    LoopBody,
}

/// One enclosing block of a label, outermost first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scope {
    /// The block's label.
    pub block: Label,
    /// The compound statement owning the block (`None` for the kernel body).
    pub owner: Option<Label>,
    /// Its kind.
    pub kind: ScopeKind,
    /// A loop body that runs at most once (`do { ... } while (false)`: a lowered `switch` or
    /// an inlined body): no loop for the cost model.
    pub once: bool,
}

/// Facts about one label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelInfo {
    /// Enclosing blocks from the root down (the last is the innermost; for a block label the
    /// list ends with the block itself).
    pub scopes: Vec<Scope>,
    /// Position in post-order of the label tree (AutoSync's text order ≺).
    pub post: u32,
    /// Whether the label names a block (start position) rather than a statement.
    pub is_block: bool,
    /// Whether the statement is in a loop header or step (not in any block's statement list).
    pub in_loop_control: bool,
    /// Source span.
    pub span: Span,
}

impl LabelInfo {
    /// Number of enclosing loop bodies.
    pub fn loops(&self) -> usize {
        self.scopes.iter().filter(|s| s.kind == ScopeKind::LoopBody).count()
    }
    /// Number of loop bodies enclosing both this label and `other` (the loops whose back
    /// edges can separate their iterations; sibling inner loops are not among them).
    pub fn common_loops(&self, other: &LabelInfo) -> usize {
        self.scopes
            .iter()
            .zip(&other.scopes)
            .take_while(|(x, y)| x.block == y.block)
            .filter(|(x, _)| x.kind == ScopeKind::LoopBody)
            .count()
    }
    /// Number of enclosing loops that can repeat (the cost model's loop count: a lowered
    /// `switch` runs its body once).
    pub fn cost_loops(&self) -> usize {
        self.scopes
            .iter()
            .filter(|s| s.kind == ScopeKind::LoopBody && !s.once)
            .count()
    }
    /// Number of enclosing `if` branches.
    pub fn conds(&self) -> usize {
        self.scopes
            .iter()
            .filter(|s| matches!(s.kind, ScopeKind::Then | ScopeKind::Else))
            .count()
    }
    /// Labels of the enclosing loop statements, outermost first.
    pub fn loop_owners(&self) -> Vec<Label> {
        self.scopes
            .iter()
            .filter(|s| s.kind == ScopeKind::LoopBody)
            .filter_map(|s| s.owner)
            .collect()
    }
}

/// The label tree of a kernel.
#[derive(Clone, Debug, Default)]
pub struct LabelTree {
    /// Facts by label.
    pub info: HashMap<Label, LabelInfo>,
}

impl LabelTree {
    /// Builds the tree for `k`.
    pub fn new(k: &Kernel) -> LabelTree {
        let mut t = LabelTree::default();
        let mut post = 0u32;
        let root = Scope {
            block: k.body.label,
            owner: None,
            kind: ScopeKind::Root,
            once: false,
        };
        t.block(&k.body, vec![root], &mut post);
        t
    }

    fn block(&mut self, b: &Block, scopes: Vec<Scope>, post: &mut u32) {
        // The start node ℓ_s is the leftmost child of its block.
        self.info.insert(
            b.label,
            LabelInfo {
                scopes: scopes.clone(),
                post: *post,
                is_block: true,
                in_loop_control: false,
                span: b.span,
            },
        );
        *post += 1;
        for s in &b.stmts {
            self.stmt(s, &scopes, post, false);
        }
    }

    fn stmt(&mut self, s: &Stmt, scopes: &[Scope], post: &mut u32, control: bool) {
        let once = matches!(
            &s.kind,
            StmtKind::Loop(Loop {
                kind: crate::ir::LoopKind::DoWhile,
                cond: crate::ir::Expr::Const(0, _),
                ..
            })
        );
        let child = |blk: &Block, kind| {
            let mut v = scopes.to_vec();
            v.push(Scope {
                block: blk.label,
                owner: Some(s.label),
                kind,
                once: once && kind == ScopeKind::LoopBody,
            });
            v
        };
        match &s.kind {
            StmtKind::If { then_blk, else_blk, .. } => {
                self.block(then_blk, child(then_blk, ScopeKind::Then), post);
                self.block(else_blk, child(else_blk, ScopeKind::Else), post);
            }
            StmtKind::Loop(Loop { header, body, step, .. }) => {
                let inner = child(body, ScopeKind::LoopBody);
                for h in header {
                    self.stmt(h, &inner, post, true);
                }
                self.block(body, inner.clone(), post);
                for h in step {
                    self.stmt(h, &inner, post, true);
                }
            }
            _ => {}
        }
        self.info.insert(
            s.label,
            LabelInfo {
                scopes: scopes.to_vec(),
                post: *post,
                is_block: false,
                in_loop_control: control,
                span: s.span,
            },
        );
        *post += 1;
    }

    /// Facts about a label (panics on a label not in the kernel: labels come from the kernel).
    pub fn get(&self, l: Label) -> &LabelInfo {
        &self.info[&l]
    }
}

/// A place where a barrier can be inserted: the start of a block or right after a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Position {
    /// At the start of the block with this label (AutoSync's "after ℓ_s").
    BlockStart(Label),
    /// Right after the statement with this label, in its block.
    After(Label),
}

impl Position {
    /// The label the position is attached to.
    pub fn label(self) -> Label {
        match self {
            Position::BlockStart(l) | Position::After(l) => l,
        }
    }
}

/// Every position where a barrier could be written into the source, in text order.
pub fn candidate_positions(k: &Kernel) -> Vec<Position> {
    fn walk(b: &Block, out: &mut Vec<Position>) {
        if b.emit_start {
            out.push(Position::BlockStart(b.label));
        }
        for s in &b.stmts {
            match &s.kind {
                StmtKind::If { then_blk, else_blk, .. } => {
                    walk(then_blk, out);
                    walk(else_blk, out);
                }
                StmtKind::Loop(Loop { body, .. }) => walk(body, out),
                _ => {}
            }
            if s.emit_after {
                out.push(Position::After(s.label));
            }
        }
    }
    let mut out = Vec::new();
    walk(&k.body, &mut out);
    out
}

/// Inserts a barrier statement at each position; returns the new kernel and the fresh labels
/// (in the order of `inserts`). Existing labels are unchanged. Positions not found are an error.
pub fn insert_barriers(k: &Kernel, inserts: &[(Position, Barrier)]) -> Result<(Kernel, Vec<Label>), Position> {
    let guarded: Vec<(Position, Barrier, Option<Expr>)> = inserts.iter().map(|(p, b)| (*p, b.clone(), None)).collect();
    insert_guarded_barriers(k, &guarded)
}

/// As [`insert_barriers`], with an optional guard per barrier: `Some(c)` inserts
/// `if (c) { barrier }` (the label returned is the `if`'s).
pub fn insert_guarded_barriers(
    k: &Kernel,
    inserts: &[(Position, Barrier, Option<Expr>)],
) -> Result<(Kernel, Vec<Label>), Position> {
    let mut out = k.clone();
    let mut labels = Vec::with_capacity(inserts.len());
    for (pos, bar, guard) in inserts {
        let label = out.fresh_label();
        let barrier = |label| Stmt {
            label,
            span: Span::DUMMY,
            emit_after: false,
            kind: StmtKind::Barrier(bar.clone(), BarrierSyntax::Synthesized),
        };
        let stmt = match guard {
            None => barrier(label),
            Some(cond) => {
                let block = |label, stmts| Block {
                    label,
                    span: Span::DUMMY,
                    braced: true,
                    emit_start: false,
                    stmts,
                };
                let (inner, then_l, else_l) = (out.fresh_label(), out.fresh_label(), out.fresh_label());
                Stmt {
                    label,
                    span: Span::DUMMY,
                    emit_after: false,
                    kind: StmtKind::If {
                        cond: cond.clone(),
                        then_blk: block(then_l, vec![barrier(inner)]),
                        else_blk: block(else_l, vec![]),
                    },
                }
            }
        };
        if !insert_in_block(&mut out.body, *pos, stmt, true) {
            return Err(*pos);
        }
        labels.push(label);
    }
    Ok((out, labels))
}

/// Whether `s` was inserted by [`insert_guarded_barriers`] (a barrier, or one under a guard).
fn is_inserted(s: &Stmt) -> bool {
    s.span.is_dummy() && matches!(s.kind, StmtKind::Barrier(..) | StmtKind::If { .. })
}

/// Whether `s` is a thread-local assignment the front end put at the start of a block with
/// the block's own span (no text of its own: nothing can be written before it).
fn is_prologue(s: &Stmt, block: Span) -> bool {
    !s.emit_after
        && s.span == block
        && match &s.kind {
            StmtKind::Basic(ops) => ops.iter().all(|o| matches!(o, Op::Assign(..))),
            // File-scope assumptions (GPUVerify axioms) hold from the kernel's entry.
            StmtKind::Assume(_) => true,
            _ => false,
        }
}

/// Inserts `stmt` at `pos` in `b` or a block nested in it; `root`: `b` is the kernel's body.
fn insert_in_block(b: &mut Block, pos: Position, stmt: Stmt, root: bool) -> bool {
    if pos == Position::BlockStart(b.label) {
        // After any barriers already inserted at the start, to keep insertion order stable, and
        // in the kernel's body after its prologue (the parameter bindings and file-scope
        // assumptions, which the text has nowhere else to put: a barrier at the start of the
        // body reads back after them). A nested block has none: a brace-less body's first
        // statement shares the block's span but is the user's code.
        let span = b.span;
        let at = b
            .stmts
            .iter()
            .take_while(|s| is_inserted(s) || root && is_prologue(s, span))
            .count();
        b.stmts.insert(at, stmt);
        return true;
    }
    if let Position::After(l) = pos {
        if let Some(i) = b.stmts.iter().position(|s| s.label == l) {
            b.stmts.insert(i + 1, stmt);
            return true;
        }
    }
    for s in b.stmts.iter_mut() {
        let blocks: Vec<&mut Block> = match &mut s.kind {
            StmtKind::If { then_blk, else_blk, .. } => vec![then_blk, else_blk],
            StmtKind::Loop(Loop { body, .. }) => vec![body],
            _ => vec![],
        };
        for blk in blocks {
            if insert_in_block(blk, pos, stmt.clone(), false) {
                return true;
            }
        }
    }
    false
}

/// Removes the statements with the given labels (used to strip or drop barriers).
pub fn remove_stmts(k: &Kernel, labels: &[Label]) -> Kernel {
    fn go(b: &mut Block, labels: &[Label]) {
        b.stmts.retain(|s| !labels.contains(&s.label));
        for s in b.stmts.iter_mut() {
            match &mut s.kind {
                StmtKind::If { then_blk, else_blk, .. } => {
                    go(then_blk, labels);
                    go(else_blk, labels);
                }
                StmtKind::Loop(Loop { body, .. }) => go(body, labels),
                _ => {}
            }
        }
    }
    let mut out = k.clone();
    go(&mut out.body, labels);
    out
}

/// Whether `b` may be left early: a `return` anywhere in it, or, outside the loops nested in
/// it, a `break` (when `breaks`) or a `continue` (when `continues`) of the loop or branch it
/// belongs to.
pub fn leaves_early(b: &Block, breaks: bool, continues: bool) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Return { .. } => true,
        StmtKind::Break => breaks,
        StmtKind::Continue => continues,
        StmtKind::If { then_blk, else_blk, .. } => {
            leaves_early(then_blk, breaks, continues) || leaves_early(else_blk, breaks, continues)
        }
        StmtKind::Loop(Loop { body, .. }) => leaves_early(body, false, false),
        _ => false,
    })
}

/// Calls `f` on every statement (including loop header/step statements), pre-order.
pub fn for_each_stmt<'a>(b: &'a Block, f: &mut impl FnMut(&'a Stmt)) {
    for s in &b.stmts {
        visit_stmt(s, f);
    }
}

/// Calls `f` on `s` and every statement nested in it, pre-order.
pub fn visit_stmt<'a>(s: &'a Stmt, f: &mut impl FnMut(&'a Stmt)) {
    f(s);
    match &s.kind {
        StmtKind::If { then_blk, else_blk, .. } => {
            for_each_stmt(then_blk, f);
            for_each_stmt(else_blk, f);
        }
        StmtKind::Loop(Loop { header, body, step, .. }) => {
            header.iter().for_each(|h| visit_stmt(h, f));
            for_each_stmt(body, f);
            step.iter().for_each(|h| visit_stmt(h, f));
        }
        _ => {}
    }
}

/// Whether a kernel needs the named-barrier checker: it uses named barriers (anything but
/// block-wide barrier 0) or async-pipeline ops (mbarriers, async copies).
pub fn uses_named_barriers(k: &Kernel) -> bool {
    let mut found = false;
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            found |= b.is_named();
        }
    });
    found || first_async_op(k).is_some()
}

/// The span of the first async-pipeline op (mbarrier, async copy, commit group, proxy fence),
/// if the kernel has one: such kernels are checked by the named-barrier checker.
pub fn first_async_op(k: &Kernel) -> Option<Span> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Basic(ops) = &s.kind {
            if found.is_none() && ops.iter().any(Op::is_async) {
                found = Some(s.span);
            }
        }
    });
    found
}
