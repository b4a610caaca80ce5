//! Induction variables: loop variables updated exactly once per iteration by a loop-invariant
//! step (`i += c`, `i -= c`, `s >>= 1`, `s /= 2`, `s *= 2`, `s <<= 1`). Their value at the head of
//! iteration r is a closed form of their entry value and r, which keeps the relation between the
//! two threads of a query (same iteration counter in lock step) that a fresh value would lose.

use super::syntax::{has_jump, modified_vars};
use crate::ir::*;

/// How an induction variable changes per iteration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Update {
    /// `v = v + step` (or `v - step` when `sub`), modular in the variable's width.
    Add {
        /// The loop-invariant step.
        step: Expr,
        /// Subtraction instead of addition.
        sub: bool,
        /// Whether the arithmetic is signed (signed overflow is undefined in C).
        signed: bool,
    },
    /// `v = v >> amount` (arithmetic when `arith`) or, when `left`, `v = v << amount`.
    Shift {
        /// Bits per iteration.
        amount: u32,
        /// Shift left.
        left: bool,
        /// Arithmetic right shift.
        arith: bool,
        /// A signed multiplication (`v *= 2`): overflow is undefined behaviour, so executions
        /// that reach an iteration past the last exact product do not exist.
        signed_mul: bool,
    },
}

/// The induction variables of a loop with their updates.
pub(crate) fn inductions(k: &Kernel, lp: &Loop) -> Vec<(VarId, Update)> {
    let Loop { header, body, step, .. } = lp;
    let mods = modified_vars(header, body, step);
    let body_continues = has_jump(body, &|s| matches!(s, StmtKind::Continue));
    // Candidate updates: top-level assignments of the step, and of the body when no `continue`
    // can skip them.
    let mut candidates: Vec<(VarId, &Expr)> = Vec::new();
    let top = step.iter().chain(body.stmts.iter().filter(|_| !body_continues));
    for s in top {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Op::Assign(v, e) = op {
                    candidates.push((*v, e));
                }
            }
        }
    }
    let mut out = Vec::new();
    for &v in &mods {
        if assignment_count(lp, v) != 1 {
            continue;
        }
        let Some(&(_, e)) = candidates.iter().find(|(w, _)| *w == v) else {
            continue;
        };
        let Some(ScalarTy::Int { bits, .. }) = k.vars.get(v.0 as usize).map(|x| x.ty) else {
            continue;
        };
        if let Some(u) = classify(k, v, bits, e, &mods) {
            out.push((v, u));
        }
    }
    out
}

/// How many operations of the loop `lp` (nested statements included) assign `v`.
fn assignment_count(lp: &Loop, v: VarId) -> usize {
    let mut n = 0;
    let mut count = |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Op::Assign(w, _) | Op::Read(Some(w), _) | Op::Atomic(Some(w), _, _) = op {
                    n += (*w == v) as usize;
                }
            }
        }
    };
    for s in lp.header.iter().chain(&lp.step) {
        crate::tree::visit_stmt(s, &mut count);
    }
    crate::tree::for_each_stmt(&lp.body, &mut count);
    n
}

/// Strips casts that keep the width: modular arithmetic does not depend on signedness.
fn strip<'e>(k: &Kernel, e: &'e Expr, bits: u8) -> &'e Expr {
    match e {
        Expr::Cast(ty, inner) if ty.int_bits() == Some(bits) && inner.ty(k).int_bits() == Some(bits) => {
            strip(k, inner, bits)
        }
        _ => e,
    }
}

fn is_var(k: &Kernel, e: &Expr, v: VarId, bits: u8) -> bool {
    matches!(strip(k, e, bits), Expr::Var(w) if *w == v)
}

fn classify(k: &Kernel, v: VarId, bits: u8, e: &Expr, mods: &[VarId]) -> Option<Update> {
    let Expr::Bin(op, ty, a, b) = strip(k, e, bits) else {
        return None;
    };
    if ty.int_bits() != Some(bits) {
        return None;
    }
    let signed = ty.is_signed();
    let invariant = |x: &Expr| {
        let mut ok = true;
        x.for_each_var(&mut |w| ok &= !mods.contains(&w));
        ok
    };
    let pow2 = |x: &Expr| match x.as_const() {
        Some(c) if c > 0 && (c & (c - 1)) == 0 => Some(c.trailing_zeros()),
        _ => None,
    };
    let shift_const = |x: &Expr| x.as_const().filter(|&c| c > 0 && c < bits as i64).map(|c| c as u32);
    match op {
        BinOp::Add if is_var(k, a, v, bits) && invariant(b) => Some(Update::Add {
            step: (**b).clone(),
            sub: false,
            signed,
        }),
        BinOp::Add if is_var(k, b, v, bits) && invariant(a) => Some(Update::Add {
            step: (**a).clone(),
            sub: false,
            signed,
        }),
        BinOp::Sub if is_var(k, a, v, bits) && invariant(b) => Some(Update::Add {
            step: (**b).clone(),
            sub: true,
            signed,
        }),
        BinOp::Shr if is_var(k, a, v, bits) => Some(Update::Shift {
            amount: shift_const(b)?,
            left: false,
            arith: signed,
            signed_mul: false,
        }),
        BinOp::Shl if is_var(k, a, v, bits) => Some(Update::Shift {
            amount: shift_const(b)?,
            left: true,
            arith: false,
            signed_mul: false,
        }),
        BinOp::Div if !signed && is_var(k, a, v, bits) => Some(Update::Shift {
            amount: pow2(b).filter(|&p| p > 0)?,
            left: false,
            arith: false,
            signed_mul: false,
        }),
        BinOp::Mul if is_var(k, a, v, bits) => Some(Update::Shift {
            amount: pow2(b).filter(|&p| p > 0)?,
            left: true,
            arith: false,
            signed_mul: signed,
        }),
        BinOp::Mul if is_var(k, b, v, bits) => Some(Update::Shift {
            amount: pow2(a).filter(|&p| p > 0)?,
            left: true,
            arith: false,
            signed_mul: signed,
        }),
        _ => None,
    }
}

/// Variables a loop updates only inside the `then` branch of one `if` at the top level of its
/// body (`if (tid < active) { ...; active >>= 1; stride <<= 1; }`): each is assigned once in the
/// whole loop, by an induction update at the top level of that branch. At the head of iteration
/// r they hold their closed form at c, the number of times the branch ran so far (c ≤ r), one
/// count shared by the whole group.
pub(crate) struct Guarded<'k> {
    /// The `if` statement.
    pub if_label: Label,
    /// Its condition.
    pub cond: &'k Expr,
    /// The variables and their updates.
    pub updates: Vec<(VarId, Update)>,
    /// The condition reads only the group's variables and values the loop does not change: it
    /// held with the group's values of every earlier update, and once false it stays false
    /// (nothing it reads changes any more).
    pub reads_only_group: bool,
    /// The `if` runs in every iteration (nothing before it in the body can end the iteration):
    /// with [`Guarded::reads_only_group`], a thread whose count fell behind the iteration has
    /// the condition false.
    pub every_iteration: bool,
}

/// The guarded induction groups of a loop (see [`Guarded`]).
pub(crate) fn guarded_inductions<'k>(k: &Kernel, lp: &'k Loop) -> Vec<Guarded<'k>> {
    let Loop { header, body, step, .. } = lp;
    let mods = modified_vars(header, body, step);
    let mut out = Vec::new();
    let mut every_iteration = true;
    for s in &body.stmts {
        if let StmtKind::If { cond, then_blk, .. } = &s.kind {
            if !leaves(then_blk) {
                let mut updates = Vec::new();
                for t in &then_blk.stmts {
                    let StmtKind::Basic(ops) = &t.kind else { continue };
                    for op in ops {
                        let Op::Assign(v, e) = op else { continue };
                        let Some(ScalarTy::Int { bits, .. }) = k.vars.get(v.0 as usize).map(|x| x.ty) else {
                            continue;
                        };
                        if assignment_count(lp, *v) != 1 {
                            continue;
                        }
                        if let Some(u) = classify(k, *v, bits, e, &mods) {
                            updates.push((*v, u));
                        }
                    }
                }
                if !updates.is_empty() {
                    let mut reads_only_group = true;
                    cond.for_each_var(&mut |w| {
                        reads_only_group &= updates.iter().any(|(v, _)| *v == w) || !mods.contains(&w)
                    });
                    out.push(Guarded {
                        if_label: s.label,
                        cond,
                        updates,
                        reads_only_group,
                        every_iteration,
                    });
                }
            }
        }
        every_iteration &= !stmt_leaves(s);
    }
    out
}

/// Whether running `b` can end the current iteration early: a `break` or `continue` of the loop
/// owning it, or a `return` anywhere.
fn leaves(b: &Block) -> bool {
    b.stmts.iter().any(stmt_leaves)
}

/// [`leaves`] for one statement.
fn stmt_leaves(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Break | StmtKind::Continue | StmtKind::Return { .. } => true,
        StmtKind::If { then_blk, else_blk, .. } => leaves(then_blk) || leaves(else_blk),
        StmtKind::Loop(Loop { body, .. }) => {
            let mut ret = false;
            crate::tree::for_each_stmt(body, &mut |x: &Stmt| ret |= matches!(x.kind, StmtKind::Return { .. }));
            ret
        }
        _ => false,
    }
}

/// A test at the top level of a loop's body that leaves the loop (`if (c) break;`, or a
/// `return` under it), in a body without `continue`: an iteration that goes on to the next
/// one reached the test and found it the other way.
pub(crate) struct ExitTest<'k> {
    /// The test.
    pub cond: &'k Expr,
    /// The loop is left when the test is true (else when it is false).
    pub leaves_when: bool,
    /// Variables assigned at the top level of the body before the test.
    pub assigned_before: Vec<VarId>,
}

/// The exit tests of a loop (see [`ExitTest`]).
pub(crate) fn exit_tests(lp: &Loop) -> Vec<ExitTest<'_>> {
    if has_jump(&lp.body, &|s| matches!(s, StmtKind::Continue)) {
        return Vec::new();
    }
    let always_leaves = |b: &Block| {
        b.stmts
            .iter()
            .any(|s| matches!(s.kind, StmtKind::Break | StmtKind::Return { .. }))
    };
    let mut out = Vec::new();
    let mut assigned = Vec::new();
    for s in &lp.body.stmts {
        match &s.kind {
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                for (blk, leaves_when) in [(then_blk, true), (else_blk, false)] {
                    if always_leaves(blk) {
                        out.push(ExitTest {
                            cond,
                            leaves_when,
                            assigned_before: assigned.clone(),
                        });
                    }
                }
            }
            StmtKind::Basic(ops) => assigned.extend(ops.iter().filter_map(|op| op.assigned_var())),
            _ => {}
        }
    }
    out
}
