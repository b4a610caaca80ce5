//! Syntactic facts about IR statements that several stages ask: the expressions directly in a
//! statement, the variables a loop assigns, and the jumps it contains.

use crate::ir::*;

/// Calls `f` on every expression directly inside statement `s` (not nested statements).
pub(crate) fn for_each_expr(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Basic(ops) => {
            for op in ops {
                op.for_each_expr(f);
            }
        }
        StmtKind::If { cond, .. } | StmtKind::Loop(Loop { cond, .. }) | StmtKind::Assume(cond) => f(cond),
        StmtKind::Barrier(Barrier::NamedSync { id, count }, _) => {
            f(id);
            if let Some(c) = count {
                f(c)
            }
        }
        StmtKind::Barrier(Barrier::NamedArrive { id, count }, _) => {
            f(id);
            f(count)
        }
        _ => {}
    }
}

/// Variables assigned anywhere in the given statements (including nested loops).
pub(crate) fn modified_vars(header: &[Stmt], body: &Block, step: &[Stmt]) -> Vec<VarId> {
    let mut out = Vec::new();
    let mut add = |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Some(v) = &op.assigned_var() {
                    if !out.contains(v) {
                        out.push(*v);
                    }
                }
            }
        }
    };
    for s in header.iter().chain(step) {
        crate::tree::visit_stmt(s, &mut add);
    }
    crate::tree::for_each_stmt(body, &mut add);
    out
}

/// Whether `b` contains a `return`, at any depth.
pub(crate) fn has_return(b: &Block) -> bool {
    let mut found = false;
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| found |= matches!(s.kind, StmtKind::Return));
    found
}

/// Whether `b` contains a statement matching `pred` that belongs to the loop owning `b`
/// (not nested in an inner loop).
pub(crate) fn has_jump(b: &Block, pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::If { then_blk, else_blk, .. } => has_jump(then_blk, pred) || has_jump(else_blk, pred),
        StmtKind::Loop(_) => false,
        k => pred(k),
    })
}
