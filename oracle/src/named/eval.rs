//! Concrete evaluation of symbolic terms under one assignment of the unknowns, with the
//! semantics [`super::symbolic`] gives them in Z3 (wrap-around per type, extension by the
//! source's signedness). Where the two could differ (division by zero, over-wide shifts,
//! booleans used as numbers) there is no answer: a caller then asks Z3.
//!
//! A satisfying assignment found this way is a model of the query Z3 would be asked, so a race
//! it shows is one Z3 would show; an assignment that fails says nothing (Z3 is asked).

use super::value::Sym;
use crate::ir::{BinOp, ScalarTy, UnOp};

/// The value of `s` (normalized to its type, booleans 0 or 1) when every unknown is `fill`
/// (normalized to the unknown's type); `None` where Z3's value might differ.
pub(crate) fn eval(s: &Sym, fill: i64) -> Option<i64> {
    match s {
        Sym::Const(v, t) => Some(t.normalize(*v)),
        Sym::Unknown(_, t) => Some(t.normalize(fill)),
        Sym::Un(UnOp::Not, _, a) => Some((as_bool(a, fill)? == 0) as i64),
        Sym::Un(op, t, a) => op.fold(*t, as_num(a, *t, fill)?),
        Sym::Bin(op, t, a, b) => {
            if matches!(op, BinOp::And | BinOp::Or) || (*t == ScalarTy::Bool && matches!(op, BinOp::Eq | BinOp::Ne)) {
                // Connectives, and comparisons of booleans, on truth values.
                return op.fold(ScalarTy::Bool, as_bool(a, fill)?, as_bool(b, fill)?);
            }
            op.fold(*t, as_num(a, *t, fill)?, as_num(b, *t, fill)?)
        }
        Sym::Cast(ScalarTy::Bool, a) => as_bool(a, fill),
        Sym::Cast(t, a) => as_num(a, *t, fill),
        Sym::Select(c, a, b) => {
            let (x, y) = match (a.ty(), b.ty()) {
                (ScalarTy::Bool, ScalarTy::Bool) => (as_bool(a, fill)?, as_bool(b, fill)?),
                (ScalarTy::Bool, _) | (_, ScalarTy::Bool) => return None,
                // The second arm takes the first's width, extended by its own signedness.
                (t, _) => (eval(a, fill)?, as_num(b, t, fill)?),
            };
            Some(if as_bool(c, fill)? != 0 { x } else { y })
        }
    }
}

/// `s` as a truth value (nonzero is true), as 0 or 1.
fn as_bool(s: &Sym, fill: i64) -> Option<i64> {
    Some((eval(s, fill)? != 0) as i64)
}

/// `s` converted to the number type `to`: its bits truncated, or extended by its own type's
/// signedness (which its normalized value already is). A boolean operand, which Z3 turns into
/// 0 or 1 of the target width, is the same number; a boolean target is refused (Z3 would keep
/// the low bit, not the truth value).
fn as_num(s: &Sym, to: ScalarTy, fill: i64) -> Option<i64> {
    if to == ScalarTy::Bool {
        return None;
    }
    Some(to.normalize(eval(s, fill)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    const I32: ScalarTy = ScalarTy::Int { bits: 32, signed: true };
    const U32: ScalarTy = ScalarTy::Int {
        bits: 32,
        signed: false,
    };
    const I64: ScalarTy = ScalarTy::Int { bits: 64, signed: true };

    fn k(v: i64, t: ScalarTy) -> Rc<Sym> {
        Rc::new(Sym::Const(v, t))
    }
    fn u(n: u32, t: ScalarTy) -> Rc<Sym> {
        Rc::new(Sym::Unknown(n, t))
    }
    fn bin(op: BinOp, t: ScalarTy, a: Rc<Sym>, b: Rc<Sym>) -> Rc<Sym> {
        Rc::new(Sym::Bin(op, t, a, b))
    }

    #[test]
    fn wraps_and_extends_like_the_encoding() {
        // (int)(u * 2^31) as a 64-bit offset: wraps in 32 bits, then sign-extends.
        let t = bin(BinOp::Mul, I32, u(0, I32), k(1 << 31, I32));
        let wide = Sym::Cast(I64, t);
        assert_eq!(eval(&wide, 1), Some(-(1i64 << 31)));
        // Unsigned operands extend with zeros.
        let t = bin(BinOp::Sub, U32, u(0, U32), k(1, U32));
        assert_eq!(eval(&Sym::Cast(I64, t), 0), Some(u32::MAX as i64));
    }

    #[test]
    fn refuses_where_z3_may_differ() {
        let div = bin(BinOp::Div, I32, k(7, I32), u(0, I32));
        assert_eq!(eval(&div, 0), None, "division by zero is Z3's own");
        let shl = bin(BinOp::Shl, I32, k(1, I32), u(0, I32));
        assert_eq!(eval(&shl, 40), None, "an over-wide shift is Z3's own");
        assert_eq!(eval(&Sym::Cast(ScalarTy::Bool, u(0, I32)), 2), Some(1));
        let low_bit = bin(BinOp::Add, ScalarTy::Bool, u(0, I32), k(0, I32));
        assert_eq!(eval(&low_bit, 2), None, "Z3 adds the low bits of a boolean Add");
        let and = bin(BinOp::And, I32, u(0, I32), k(4, I32));
        assert_eq!(eval(&and, 2), Some(1), "a connective works on truth values");
    }

    #[test]
    fn predicates_and_selects() {
        let lt = bin(BinOp::Lt, I32, u(0, I32), k(3, I32));
        assert_eq!(eval(&lt, 0), Some(1));
        assert_eq!(eval(&lt, 5), Some(0));
        let sel = Sym::Select(lt, k(10, I32), k(20, I32));
        assert_eq!(eval(&sel, 0), Some(10));
        assert_eq!(eval(&sel, 7), Some(20));
    }
}
