//! Induction variables: loop variables updated exactly once per iteration by a loop-invariant
//! step (`i += c`, `i -= c`, `s >>= 1`, `s /= 2`, `s *= 2`, `s <<= 1`). Their value at the head of
//! iteration r is a closed form of their entry value and r, which keeps the relation between the
//! two threads of a query (same iteration counter in lock step) that a fresh value would lose.

use super::symex::{has_jump, modified_vars};
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
    },
}

/// The induction variables of a loop with their updates.
pub(crate) fn inductions(k: &Kernel, header: &[Stmt], body: &Block, step: &[Stmt]) -> Vec<(VarId, Update)> {
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
        if assignment_count(header, body, step, v) != 1 {
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

fn assignment_count(header: &[Stmt], body: &Block, step: &[Stmt], v: VarId) -> usize {
    let mut n = 0;
    let mut count = |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Op::Assign(w, _) | Op::Read(Some(w), _) | Op::Atomic(Some(w), _) = op {
                    n += (*w == v) as usize;
                }
            }
        }
    };
    for s in header.iter().chain(step) {
        crate::tree::visit_stmt(s, &mut count);
    }
    crate::tree::for_each_stmt(body, &mut count);
    n
}

fn width_of(ty: ScalarTy) -> Option<u8> {
    match ty {
        ScalarTy::Int { bits, .. } => Some(bits),
        _ => None,
    }
}

/// Strips casts that keep the width: modular arithmetic does not depend on signedness.
fn strip<'e>(k: &Kernel, e: &'e Expr, bits: u8) -> &'e Expr {
    match e {
        Expr::Cast(ty, inner)
            if width_of(*ty) == Some(bits) && width_of(super::fold::type_of(k, inner)) == Some(bits) =>
        {
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
    if width_of(*ty) != Some(bits) {
        return None;
    }
    let signed = matches!(ty, ScalarTy::Int { signed: true, .. });
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
        }),
        BinOp::Shl if is_var(k, a, v, bits) => Some(Update::Shift {
            amount: shift_const(b)?,
            left: true,
            arith: false,
        }),
        BinOp::Div if !signed && is_var(k, a, v, bits) => Some(Update::Shift {
            amount: pow2(b).filter(|&p| p > 0)?,
            left: false,
            arith: false,
        }),
        BinOp::Mul if is_var(k, a, v, bits) => Some(Update::Shift {
            amount: pow2(b).filter(|&p| p > 0)?,
            left: true,
            arith: false,
        }),
        BinOp::Mul if is_var(k, b, v, bits) => Some(Update::Shift {
            amount: pow2(a).filter(|&p| p > 0)?,
            left: true,
            arith: false,
        }),
        _ => None,
    }
}
