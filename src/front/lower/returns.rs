//! An inlined function's returns without jumps. A return inside a body is a `break` out of a
//! one-pass loop around it; the checker summarises every loop, so values assigned before such
//! a return would be unknown after it. Where every return ends a branch, the body is
//! restructured instead: `if (c) { A; return x; } B` becomes `if (c) { A } else { B }`.

use autosync_oracle::ir::{Block, Stmt, StmtKind};

/// The body without its returns (function-level `break`s), or `None` where a return leaves
/// only some paths of a branch that more code follows (moving that code into both paths
/// would copy it).
pub(super) fn without_returns(stmts: Vec<Stmt>) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    let mut it = stmts.into_iter();
    while let Some(s) = it.next() {
        match s.kind {
            // What follows a return never runs.
            StmtKind::Break => return Some(out),
            StmtKind::Return { .. } => {
                out.push(s);
                return Some(out);
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } if returns_in(&then_blk) || returns_in(&else_blk) => {
                let rest: Vec<Stmt> = it.collect();
                let (t, e) = (leaves(&then_blk.stmts), leaves(&else_blk.stmts));
                let (then_blk, else_blk) = match (t, e) {
                    // Nothing follows, or nothing after the `if` is reached.
                    (true, true) => (fold(then_blk, vec![])?, fold(else_blk, vec![])?),
                    _ if rest.is_empty() => (fold(then_blk, vec![])?, fold(else_blk, vec![])?),
                    (true, false) => (fold(then_blk, vec![])?, fold(else_blk, rest)?),
                    (false, true) => (fold(then_blk, rest)?, fold(else_blk, vec![])?),
                    (false, false) => return None,
                };
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond,
                        then_blk,
                        else_blk,
                    },
                    ..s
                });
                return Some(out);
            }
            kind => out.push(Stmt { kind, ..s }),
        }
    }
    Some(out)
}

/// A branch followed by the code after its `if` (the code keeps its own spans: in the source
/// it still follows the `if`, and only this branch reaches it).
fn fold(mut b: Block, rest: Vec<Stmt>) -> Option<Block> {
    b.stmts.extend(rest);
    b.stmts = without_returns(std::mem::take(&mut b.stmts))?;
    Some(b)
}

/// Whether a block holds a return of the function (a `break` outside any loop of its own).
pub(super) fn returns_in(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::If { then_blk, else_blk, .. } => returns_in(then_blk) || returns_in(else_blk),
        _ => false,
    })
}

/// Whether every path through the statements returns or ends the thread.
fn leaves(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Return { .. } => true,
        StmtKind::If { then_blk, else_blk, .. } => leaves(&then_blk.stmts) && leaves(&else_blk.stmts),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use autosync_oracle::ir::{Expr, Label, Op, ScalarTy, Span, VarId};

    fn stmt(label: u32, kind: StmtKind) -> Stmt {
        Stmt {
            label: Label(label),
            span: Span::DUMMY,
            emit_after: false,
            kind,
        }
    }

    fn assign(label: u32, value: i64) -> Stmt {
        stmt(
            label,
            StmtKind::Basic(vec![Op::Assign(VarId(0), Expr::Const(value, ScalarTy::I32))]),
        )
    }

    fn block(label: u32, stmts: Vec<Stmt>) -> Block {
        Block {
            label: Label(label),
            span: Span::DUMMY,
            braced: true,
            emit_start: true,
            stmts,
        }
    }

    fn branch(label: u32, then: Vec<Stmt>, other: Vec<Stmt>) -> Stmt {
        let cond = Expr::bool(true);
        let (then_blk, else_blk) = (block(label + 1, then), block(label + 2, other));
        stmt(
            label,
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            },
        )
    }

    /// `if (c) { x = 1; return; } x = 2;` is `if (c) { x = 1; } else { x = 2; }`.
    #[test]
    fn code_after_a_returning_branch_becomes_the_other_branch() {
        let body = vec![
            branch(10, vec![assign(1, 1), stmt(2, StmtKind::Break)], vec![]),
            assign(3, 2),
        ];
        let got = without_returns(body).expect("restructured");
        let want = vec![branch(10, vec![assign(1, 1)], vec![assign(3, 2)])];
        assert_eq!(got, want);
    }

    /// What follows a return in the same block, or an `if` whose branches both return, is dropped.
    #[test]
    fn code_no_path_reaches_is_dropped() {
        let both = branch(10, vec![stmt(1, StmtKind::Break)], vec![stmt(2, StmtKind::Break)]);
        let got = without_returns(vec![assign(3, 1), both, assign(4, 2)]).expect("restructured");
        assert_eq!(got, vec![assign(3, 1), branch(10, vec![], vec![])]);
    }

    /// A branch that returns on only some of its paths, followed by more code, keeps its jumps.
    #[test]
    fn a_branch_returning_on_some_paths_before_more_code_is_left() {
        let inner = branch(20, vec![stmt(1, StmtKind::Break)], vec![]);
        let body = vec![branch(10, vec![inner, assign(2, 1)], vec![]), assign(3, 2)];
        assert_eq!(without_returns(body), None);
    }
}
