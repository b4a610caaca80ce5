//! Variables that hold a power of two (or zero), by exponent: a strided index
//! `offset * (2 * tid + 1)` with `offset` doubling or halving every iteration is a shift of
//! `2 * tid + 1` by the exponent, which the solver handles far better than a multiplication of
//! two unknowns.
//!
//! An exponent is a 32-bit value `e`: the variable holds 2^e, or zero when `e` equals the
//! variable's width. Exponents stay at most [`cap`]: a signed variable never holds a negative
//! power of two here (2^(w-1) is `INT_MIN`, which halving would not turn into 2^(w-2)).

use crate::ir::ScalarTy;
use crate::smt::{numeral, resize};
use z3::ast::{Bool, BV};

/// The largest exponent a variable of type `ty` can hold as a power of two.
pub(crate) fn cap(ty: ScalarTy) -> u32 {
    match ty {
        ScalarTy::Int { bits, signed: true } => bits as u32 - 2,
        ScalarTy::Int { bits, signed: false } => bits as u32 - 1,
        _ => 0,
    }
}

/// The exponent of constant `c` in a `w`-bit variable: zero, or a power of two up to `cap`.
pub(crate) fn const_exponent(c: i64, w: u32, cap: u32) -> Option<BV> {
    let u = if w >= 64 {
        c as u64
    } else {
        (c as u64) & ((1u64 << w) - 1)
    };
    if u == 0 {
        return Some(numeral(w as u64, 32));
    }
    (u.is_power_of_two() && u.trailing_zeros() <= cap).then(|| numeral(u.trailing_zeros() as u64, 32))
}

/// The value of a `w`-bit variable with exponent `exp`.
pub(crate) fn value(exp: &BV, w: u32) -> BV {
    // A shift by w or more gives 0, which is what exponent w stands for.
    numeral(1, w).bvshl(resize(exp, w, false))
}

/// The exponent after `r` shifts by `amount` bits (left or right) of a `w`-bit variable with
/// exponent `e0`: left shifts past `cap` and right shifts past 2^0 give zero, and zero stays.
pub(crate) fn shifted(e0: &BV, r: &BV, amount: u32, left: bool, cap: u32, w: u32) -> BV {
    let e = e0.zero_ext(32);
    let total = r.zero_ext(32).bvmul(numeral(amount as u64, 64));
    let zero = numeral(w as u64, 64);
    let out = if left {
        let s = e.bvadd(&total);
        s.bvugt(numeral(cap as u64, 64)).ite(&zero, &s)
    } else {
        Bool::or(&[e.eq(&zero), e.bvult(&total)]).ite(&zero, &e.bvsub(&total))
    };
    out.extract(31, 0)
}
