//! Deciding without the solver that two symbolic accesses cannot overlap.
//!
//! Threads of one block usually compute addresses from the same unknowns (`blockIdx`, unset
//! parameters) plus their own concrete thread index: `out[blockIdx.x * 64 + t]` gives every
//! thread the same term with a different constant. Comparing the two terms node by node yields
//! their difference without asking Z3 — a kernel with 128 threads would otherwise need one
//! query per pair of threads.
//!
//! Arithmetic narrower than 64 bits is modular (C's wrap-around); 64-bit byte offsets are
//! taken not to wrap, as addresses do not.

use super::value::{Sym, Val};
use crate::ir::BinOp;

/// What is known about `a - b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Diff {
    /// Exactly this (modulo 2^width below 64 bits, as a canonical signed value).
    Exact(i128),
    /// At least this far apart, in either direction (64-bit level only).
    AtLeast(i128),
}

/// Whether byte ranges `[a, a + sa)` and `[b, b + sb)` are disjoint for every value of the
/// unknowns (`false` when it cannot tell).
pub(crate) fn disjoint(a: &Val, sa: u32, b: &Val, sb: u32) -> bool {
    let d = match (a, b) {
        (Val::S(x), Val::S(y)) => diff(x, y),
        _ => None,
    };
    let (sa, sb) = (i128::from(sa.max(1)), i128::from(sb.max(1)));
    match d {
        Some(Diff::Exact(d)) => d >= sb || -d >= sa,
        Some(Diff::AtLeast(m)) => m >= sa.max(sb),
        None => false,
    }
}

/// `v` reduced to the canonical signed representative modulo 2^w.
fn wrap(v: i128, w: u32) -> i128 {
    if w >= 64 {
        return v;
    }
    let m = 1i128 << w;
    let r = v.rem_euclid(m);
    if r >= m / 2 {
        r - m
    } else {
        r
    }
}

fn diff(a: &Sym, b: &Sym) -> Option<Diff> {
    if a == b {
        return Some(Diff::Exact(0));
    }
    let w = a.ty().width();
    let modular = w < 64;
    match (a, b) {
        (Sym::Const(x, _), Sym::Const(y, _)) => Some(Diff::Exact(wrap(i128::from(*x) - i128::from(*y), w))),
        (Sym::Bin(op, t, a1, a2), Sym::Bin(op2, t2, b1, b2)) if op == op2 && t == t2 && !op.is_predicate() => {
            let (d1, d2) = (diff(a1, b1)?, diff(a2, b2)?);
            match op {
                BinOp::Add | BinOp::Sub => {
                    let neg = *op == BinOp::Sub;
                    match (d1, d2) {
                        (Diff::Exact(x), Diff::Exact(y)) => Some(Diff::Exact(wrap(if neg { x - y } else { x + y }, w))),
                        // A lower bound survives adding an exact amount only without wrap-around.
                        (Diff::AtLeast(m), Diff::Exact(e)) | (Diff::Exact(e), Diff::AtLeast(m))
                            if !modular && m > e.abs() =>
                        {
                            Some(Diff::AtLeast(m - e.abs()))
                        }
                        _ => None,
                    }
                }
                BinOp::Mul => {
                    // Scaling needs the same constant factor on both sides.
                    let (factor, d) = match (&**a2, &**b2, &**a1, &**b1) {
                        (Sym::Const(k, _), Sym::Const(k2, _), _, _) if k == k2 => (*k, d1),
                        (_, _, Sym::Const(k, _), Sym::Const(k2, _)) if k == k2 => (*k, d2),
                        _ => return None,
                    };
                    scale(d, i128::from(factor), w)
                }
                BinOp::Shl => match (&**a2, &**b2) {
                    (Sym::Const(k, _), Sym::Const(k2, _)) if k == k2 && (0..62).contains(k) => scale(d1, 1i128 << k, w),
                    _ => None,
                },
                _ => None,
            }
        }
        (Sym::Cast(t, x), Sym::Cast(t2, y)) if t == t2 => {
            let (wf, wt) = (x.ty().width(), t.width());
            if x.ty() != y.ty() || wf > 64 {
                return None;
            }
            match diff(x, y)? {
                Diff::Exact(0) => Some(Diff::Exact(0)),
                // Same width (signedness changes) or truncation: still modular.
                Diff::Exact(d) if wt <= wf => Some(Diff::Exact(wrap(d, wt))),
                // Widening to 64 bits: distinct narrow values stay distinct; the wide difference
                // is d or d -/+ 2^wf, at least |d| (d is the canonical representative).
                Diff::Exact(d) if wt == 64 && wf < 64 => Some(Diff::AtLeast(d.abs())),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `d * k` at width `w`.
fn scale(d: Diff, k: i128, w: u32) -> Option<Diff> {
    match d {
        Diff::Exact(x) => Some(Diff::Exact(wrap(x.checked_mul(k)?, w))),
        Diff::AtLeast(m) if w >= 64 && k != 0 => Some(Diff::AtLeast(m.checked_mul(k.abs())?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ScalarTy;
    use std::rc::Rc;

    const I32: ScalarTy = ScalarTy::Int { bits: 32, signed: true };
    const U64: ScalarTy = ScalarTy::Int {
        bits: 64,
        signed: false,
    };

    fn c(v: i64, t: ScalarTy) -> Rc<Sym> {
        Rc::new(Sym::Const(v, t))
    }
    fn bin(op: BinOp, t: ScalarTy, a: Rc<Sym>, b: Rc<Sym>) -> Rc<Sym> {
        Rc::new(Sym::Bin(op, t, a, b))
    }
    /// `(u64)(bid * 64 + t) * 4`, the byte offset of `out[blockIdx.x * 64 + t]`.
    fn offset(t: i64) -> Val {
        let bid = Rc::new(Sym::Unknown(0, I32));
        let idx = bin(BinOp::Add, I32, bin(BinOp::Mul, I32, bid, c(64, I32)), c(t, I32));
        Val::S(bin(BinOp::Mul, U64, Rc::new(Sym::Cast(U64, idx)), c(4, U64)))
    }

    #[test]
    fn per_thread_constants_are_compared_exactly() {
        assert!(disjoint(&offset(3), 4, &offset(5), 4));
        assert!(!disjoint(&offset(3), 4, &offset(3), 4));
        // An 8-byte access from element 3 covers element 4.
        assert!(!disjoint(&offset(3), 8, &offset(4), 4));
    }

    #[test]
    fn wrap_around_below_64_bits_is_respected() {
        // Indices that differ by 2^32 are the same 32-bit value.
        assert!(!disjoint(&offset(0), 4, &offset(1 << 32), 4));
        // Different unknowns: no verdict.
        let other = Val::S(Rc::new(Sym::Unknown(1, U64)));
        assert!(!disjoint(&offset(0), 4, &other, 4));
    }
}
