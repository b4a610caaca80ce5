//! Bit-vector arithmetic on numerals and small rewrites the walk makes before Z3 sees a term:
//! constant operations folded here (with the solver's semantics), numerals kept numerals across
//! resizing, and signed division by a power of two as shifts.

use super::terms::Val;
use crate::ir::*;
use crate::smt::{mask, numeral, resize};
use z3::ast::{Ast, Bool, BV};

/// `k` when `y` is the constant 2^k with 0 < k and 2^k positive as a signed value.
pub(super) fn pow2_divisor(y: &BV) -> Option<u32> {
    let w = y.get_size();
    let c = y.as_u64()?;
    (c > 1 && c.is_power_of_two() && c.trailing_zeros() < w - 1).then_some(c.trailing_zeros())
}

/// Signed `x / 2^k` or `x % 2^k` (C: truncation toward zero) with shifts: the same values as
/// `bvsdiv`/`bvsrem`, without the divider circuit that costs the solver about 7% of its time on
/// generated kernels (`t / 2`, `i % NT`).
pub(super) fn signed_pow2_div_rem(op: BinOp, x: &BV, y: &BV) -> BV {
    let w = x.get_size();
    let k = pow2_divisor(y).expect("checked by the caller") as u64;
    // Negative dividends round up: add 2^k - 1 before the arithmetic shift.
    let sign = x.bvashr(numeral(w as u64 - 1, w));
    let bias = sign.bvlshr(numeral(w as u64 - k, w));
    let q = x.bvadd(&bias).bvashr(numeral(k, w));
    match op {
        BinOp::Div => q,
        _ => x.bvsub(q.bvshl(numeral(k, w))),
    }
}

/// [`resize`], and a numeral stays a numeral (an extension of one is not, to Z3's term
/// builder; see the folding in `Walker::eval_bin`).
pub(super) fn resize_folded(x: &BV, bits: u32, from_signed: bool) -> BV {
    let w = x.get_size();
    if let (Some(v), true) = (x.as_u64(), bits <= 64 && w <= 64) {
        let negative = from_signed && (v >> (w - 1)) & 1 == 1;
        let extended = if negative { v | !mask(w) } else { v };
        return numeral(extended & mask(bits), bits);
    }
    let r = resize(x, bits, from_signed);
    if x.as_u64().is_some() && r.as_u64().is_none() {
        r.simplify()
    } else {
        r
    }
}

/// `op` on two numerals of `w <= 64` bits, computed here (a Z3 simplifier call per constant
/// expression was a quarter of the walk of a hashing kernel full of constants); the same value
/// the bit-vector operation has. `None` when the result is not a plain numeral: signed
/// overflow (undefined behaviour, which the walk records as a condition), division by zero,
/// or an operation not folded here.
pub(super) fn fold_numerals(op: BinOp, x: u64, y: u64, w: u32, signed: bool) -> Option<Val> {
    use BinOp::*;
    if w == 0 || w > 64 || matches!(op, And | Or) {
        return None;
    }
    let ty = ScalarTy::Int { bits: w as u8, signed };
    let (sx, sy) = (ty.normalize(x as i64), ty.normalize(y as i64));
    let exact = |r: i128| r >= -(1i128 << (w - 1)) && r < (1i128 << (w - 1));
    let overflows = signed
        && match op {
            Add => !exact(sx as i128 + sy as i128),
            Sub => !exact(sx as i128 - sy as i128),
            Mul => !exact(sx as i128 * sy as i128),
            Div => sy != 0 && !exact(sx as i128 / sy as i128),
            _ => false,
        };
    if overflows {
        return None;
    }
    // Where C is undefined the bit-vector operations still have a value: over-wide shifts
    // give 0, or the sign bits for a signed `>>`.
    let r = match op {
        Shl | Shr if y >= w as u64 => match op {
            Shr if signed => sx >> 63,
            _ => 0,
        },
        _ => op.fold(ty, x as i64, y as i64)?,
    };
    Some(if op.is_predicate() {
        Val::B(Bool::from_bool(r != 0))
    } else {
        Val::Bv(numeral(r as u64 & mask(w), w))
    })
}

#[cfg(test)]
mod pow2_tests {
    use super::*;
    use z3::{SatResult, Solver};

    /// The shift forms equal `bvsdiv`/`bvsrem` for every dividend (proved by Z3) at every
    /// positive power-of-two divisor in 8 and 32 bits, and at a few in 64 bits (the 64-bit
    /// divider proofs are slow).
    #[test]
    fn signed_pow2_div_rem_matches_the_solver_semantics() {
        for w in [8u32, 32, 64] {
            let x = BV::new_const(format!("x{w}"), w);
            let ks: Vec<u32> = if w == 64 { vec![1, 31, 62] } else { (1..w - 1).collect() };
            for k in ks {
                let y = BV::from_u64(1u64 << k, w);
                for (op, exact) in [(BinOp::Div, x.bvsdiv(&y)), (BinOp::Rem, x.bvsrem(&y))] {
                    let s = Solver::new();
                    s.assert(signed_pow2_div_rem(op, &x, &y).eq(&exact).not());
                    assert_eq!(s.check(), SatResult::Unsat, "{op:?} by 2^{k} in {w} bits");
                }
            }
            // Not rewritten: 1, non-powers of two, and 2^(w-1) (negative as a signed value).
            for c in [1u64, 3, 1u64 << (w - 1)] {
                assert_eq!(pow2_divisor(&BV::from_u64(c, w)), None, "{c} in {w} bits");
            }
        }
    }
}

#[cfg(test)]
mod fold_tests {
    use super::*;

    /// Numerals folded here equal what Z3 computes for the same operation, at edge values of
    /// several widths; and folding declines exactly where the operation is undefined (signed
    /// overflow, division by zero).
    #[test]
    fn folded_numerals_equal_the_solver_semantics() {
        use BinOp::*;
        let ops = [
            Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Lt, Le, Gt, Ge, Eq, Ne,
        ];
        for w in [8u32, 16, 32, 64] {
            let m = mask(w);
            let half = 1u64 << (w - 1);
            let values = [
                0,
                1,
                2,
                3,
                7,
                w as u64 - 1,
                w as u64,
                half - 1,
                half,
                half + 1,
                m - 1,
                m,
                0x5a5a_5a5a_5a5a_5a5a & m,
            ];
            for signed in [false, true] {
                for op in ops {
                    for &a in &values {
                        for &b in &values {
                            let (x, y) = (BV::from_u64(a, w), BV::from_u64(b, w));
                            let folded = fold_numerals(op, a, b, w, signed);
                            let what = format!("{op:?} {a:#x} {b:#x} in {w} bits, signed {signed}");
                            let overflow = match op {
                                Add if signed => {
                                    Some(Bool::and(&[x.bvadd_no_overflow(&y, true), x.bvadd_no_underflow(&y)]))
                                }
                                Sub if signed => {
                                    Some(Bool::and(&[x.bvsub_no_overflow(&y), x.bvsub_no_underflow(&y, true)]))
                                }
                                Mul if signed => Some(x.sign_ext(w).bvmul(y.sign_ext(w)).eq(x.bvmul(&y).sign_ext(w))),
                                Div if signed => Some(x.bvsdiv_no_overflow(&y)),
                                _ => None,
                            }
                            .map(|ok| ok.not().simplify().as_bool() == Some(true));
                            if overflow == Some(true) || (matches!(op, Div | Rem) && b == 0) {
                                assert!(folded.is_none(), "{what}: undefined, yet folded");
                                continue;
                            }
                            let expected = match op {
                                Add => Val::Bv(x.bvadd(&y)),
                                Sub => Val::Bv(x.bvsub(&y)),
                                Mul => Val::Bv(x.bvmul(&y)),
                                Div if signed => Val::Bv(x.bvsdiv(&y)),
                                Div => Val::Bv(x.bvudiv(&y)),
                                Rem if signed => Val::Bv(x.bvsrem(&y)),
                                Rem => Val::Bv(x.bvurem(&y)),
                                Shl => Val::Bv(x.bvshl(&y)),
                                Shr if signed => Val::Bv(x.bvashr(&y)),
                                Shr => Val::Bv(x.bvlshr(&y)),
                                BitAnd => Val::Bv(x.bvand(&y)),
                                BitOr => Val::Bv(x.bvor(&y)),
                                BitXor => Val::Bv(x.bvxor(&y)),
                                Lt if signed => Val::B(x.bvslt(&y)),
                                Lt => Val::B(x.bvult(&y)),
                                Le if signed => Val::B(x.bvsle(&y)),
                                Le => Val::B(x.bvule(&y)),
                                Gt if signed => Val::B(x.bvsgt(&y)),
                                Gt => Val::B(x.bvugt(&y)),
                                Ge if signed => Val::B(x.bvsge(&y)),
                                Ge => Val::B(x.bvuge(&y)),
                                Eq => Val::B(x.eq(&y)),
                                Ne => Val::B(x.eq(&y).not()),
                                And | Or => unreachable!("not in the list"),
                            };
                            match (folded, expected) {
                                (Some(Val::Bv(f)), Val::Bv(e)) => {
                                    assert_eq!(f.as_u64(), e.simplify().as_u64(), "{what}")
                                }
                                (Some(Val::B(f)), Val::B(e)) => {
                                    assert_eq!(f.as_bool(), e.simplify().as_bool(), "{what}")
                                }
                                (f, _) => panic!("{what}: folded to {:?}", f.is_some()),
                            }
                        }
                    }
                }
            }
        }
    }

    /// Resizing a numeral gives the numeral Z3 computes for the extension or truncation.
    #[test]
    fn resized_numerals_equal_the_solver_semantics() {
        for (w, v) in [
            (8u32, 0x80u64),
            (8, 0x7f),
            (32, 0xffff_fffe),
            (32, 5),
            (64, u64::MAX),
            (16, 0x8001),
        ] {
            let x = BV::from_u64(v, w);
            for bits in [8u32, 16, 32, 64] {
                for signed in [false, true] {
                    let r = resize_folded(&x, bits, signed);
                    assert_eq!(r.get_size(), bits);
                    assert_eq!(
                        r.as_u64(),
                        resize(&x, bits, signed).simplify().as_u64(),
                        "{v:#x} {w} -> {bits} {signed}"
                    );
                }
            }
        }
    }
}
