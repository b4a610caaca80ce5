//! Integer values as bit-vectors of the IR's scalar types.
//!
//! A value is kept in *canonical* form: truncated to its type's width, then sign-extended
//! (signed types) or zero-extended (unsigned, `Bool`) to 64 bits. `Opaque` values are raw bits.

use super::config::ExecError;
use crate::ir::{BinOp, Label, ScalarTy, UnOp};

/// Width in bits of a scalar type (`Bool` is 1 bit, `Opaque` 64 raw bits).
pub fn width(ty: ScalarTy) -> u32 {
    match ty {
        ScalarTy::Int { bits, .. } => (bits as u32).min(64),
        ScalarTy::Bool => 1,
        ScalarTy::Opaque => 64,
    }
}

/// The all-ones mask of `w` bits.
fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Truncates `v` to `ty`'s width and extends it back to 64 bits per `ty`'s signedness.
pub fn canon(ty: ScalarTy, v: u64) -> u64 {
    match ty {
        ScalarTy::Int { signed, .. } => {
            let w = width(ty);
            if w == 0 {
                return 0;
            }
            let m = mask(w);
            let t = v & m;
            if signed && w < 64 && (t >> (w - 1)) & 1 == 1 {
                t | !m
            } else {
                t
            }
        }
        ScalarTy::Bool => v & 1,
        ScalarTy::Opaque => v,
    }
}

/// C conversion of a canonical `from` value to type `to` (`Bool` means `!= 0`).
pub fn cast(from: ScalarTy, to: ScalarTy, v: u64) -> u64 {
    match to {
        ScalarTy::Bool if from == ScalarTy::Bool => v,
        ScalarTy::Bool => (v != 0) as u64,
        // Truncation then extension per the target type is exactly C's integer conversion,
        // because the source is already extended per its own signedness.
        ScalarTy::Int { .. } => canon(to, v),
        ScalarTy::Opaque => v,
    }
}

/// Whether values of `ty` compare as signed numbers.
fn is_signed(ty: ScalarTy) -> bool {
    matches!(ty, ScalarTy::Int { signed: true, .. } | ScalarTy::Opaque)
}

/// A deterministic 64-bit mix of `parts` (splitmix64 finaliser chained over the parts).
pub fn mix(parts: &[u64]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    for &p in parts {
        h ^= p;
        h = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
        h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h ^= h >> 31;
    }
    h
}

/// Applies a unary operator to a canonical value of type `ty` (the result of `Not` is `Bool`).
pub fn unary(op: UnOp, ty: ScalarTy, v: u64) -> u64 {
    match op {
        UnOp::Not => (v == 0) as u64,
        // Float negation etc. is uninterpreted: any deterministic function of the operand.
        _ if ty == ScalarTy::Opaque => mix(&[op as u64, v]),
        UnOp::Neg => canon(ty, v.wrapping_neg()),
        UnOp::BitNot => canon(ty, !v),
    }
}

/// Applies a binary operator to canonical operands of type `ty`. Shifts follow SMT-LIB
/// bit-vector semantics (amount ≥ width gives 0, or all sign bits for a signed `>>`), signed
/// overflow wraps (`INT_MIN / -1 == INT_MIN`), and division by zero is an error at `label`.
pub fn binary(op: BinOp, ty: ScalarTy, a: u64, b: u64, label: Label) -> Result<u64, ExecError> {
    use BinOp::*;
    let signed = is_signed(ty);
    let lt = |x: u64, y: u64| {
        if signed {
            (x as i64) < (y as i64)
        } else {
            x < y
        }
    };
    let r = match op {
        Lt => lt(a, b) as u64,
        Le => (!lt(b, a)) as u64,
        Gt => lt(b, a) as u64,
        Ge => (!lt(a, b)) as u64,
        Eq => (a == b) as u64,
        Ne => (a != b) as u64,
        And => (a != 0 && b != 0) as u64,
        Or => (a != 0 || b != 0) as u64,
        // Float arithmetic is uninterpreted: any deterministic function of the operands.
        _ if ty == ScalarTy::Opaque => mix(&[op as u64 + 100, a, b]),
        Add => canon(ty, a.wrapping_add(b)),
        Sub => canon(ty, a.wrapping_sub(b)),
        Mul => canon(ty, a.wrapping_mul(b)),
        Div | Rem => {
            if b == 0 {
                return Err(ExecError::DivByZero(label));
            }
            let v = match (op, signed) {
                (Div, true) => (a as i64).wrapping_div(b as i64) as u64,
                (Div, false) => a / b,
                (_, true) => (a as i64).wrapping_rem(b as i64) as u64,
                (_, false) => a % b,
            };
            canon(ty, v)
        }
        Shl | Shr => {
            let w = width(ty);
            let amount = b & mask(w);
            match (op, signed) {
                (Shl, _) if amount >= w as u64 => 0,
                (Shl, _) => canon(ty, a << amount),
                // `a` is sign-extended, so an i64 shift by up to 63 fills with the sign.
                (_, true) => canon(ty, ((a as i64) >> amount.min(63)) as u64),
                (_, false) if amount >= w as u64 => 0,
                (_, false) => a >> amount,
            }
        }
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => canon(ty, a ^ b),
    };
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const I8: ScalarTy = ScalarTy::Int { bits: 8, signed: true };
    const U8: ScalarTy = ScalarTy::Int { bits: 8, signed: false };
    const L: Label = Label(7);

    fn bin(op: BinOp, ty: ScalarTy, a: i64, b: i64) -> i64 {
        binary(op, ty, canon(ty, a as u64), canon(ty, b as u64), L).unwrap() as i64
    }

    #[test]
    fn exec_canonical_forms() {
        assert_eq!(canon(I8, 0xFF) as i64, -1);
        assert_eq!(canon(U8, 0x1FF), 0xFF);
        assert_eq!(canon(ScalarTy::I32, 0x8000_0000) as i64, i32::MIN as i64);
        assert_eq!(canon(ScalarTy::U32, u64::MAX), 0xFFFF_FFFF);
        assert_eq!(canon(ScalarTy::Bool, 2), 0);
    }

    #[test]
    fn exec_wrap_around() {
        assert_eq!(bin(BinOp::Add, U8, 255, 1), 0);
        assert_eq!(bin(BinOp::Add, ScalarTy::I32, i32::MAX as i64, 1), i32::MIN as i64);
        assert_eq!(bin(BinOp::Sub, ScalarTy::U32, 0, 1), u32::MAX as i64);
        assert_eq!(bin(BinOp::Mul, ScalarTy::I32, 1 << 16, 1 << 16), 0);
        assert_eq!(bin(BinOp::Add, ScalarTy::I64, i64::MAX, 1), i64::MIN);
    }

    #[test]
    fn exec_division_and_remainder() {
        assert_eq!(bin(BinOp::Div, ScalarTy::I32, -7, 2), -3);
        assert_eq!(bin(BinOp::Rem, ScalarTy::I32, -7, 2), -1);
        assert_eq!(bin(BinOp::Div, ScalarTy::U32, -7, 2), ((u32::MAX - 6) / 2) as i64);
        assert_eq!(bin(BinOp::Div, ScalarTy::I32, i32::MIN as i64, -1), i32::MIN as i64);
        assert_eq!(bin(BinOp::Rem, ScalarTy::I32, i32::MIN as i64, -1), 0);
        assert_eq!(binary(BinOp::Div, ScalarTy::I32, 5, 0, L), Err(ExecError::DivByZero(L)));
        assert_eq!(binary(BinOp::Rem, ScalarTy::U64, 5, 0, L), Err(ExecError::DivByZero(L)));
    }

    #[test]
    fn exec_shifts() {
        assert_eq!(bin(BinOp::Shr, ScalarTy::I32, -8, 1), -4);
        assert_eq!(bin(BinOp::Shr, ScalarTy::U32, -8, 1), (u32::MAX as i64 - 7) >> 1);
        assert_eq!(bin(BinOp::Shr, ScalarTy::I32, -8, 40), -1);
        assert_eq!(bin(BinOp::Shr, ScalarTy::U32, 8, 32), 0);
        assert_eq!(bin(BinOp::Shl, ScalarTy::I32, 1, 31), i32::MIN as i64);
        assert_eq!(bin(BinOp::Shl, ScalarTy::I32, 1, 32), 0);
        assert_eq!(bin(BinOp::Shl, U8, 0x81, 1), 2);
    }

    #[test]
    fn exec_comparisons_respect_signedness() {
        assert_eq!(bin(BinOp::Lt, ScalarTy::I32, -1, 0), 1);
        assert_eq!(bin(BinOp::Lt, ScalarTy::U32, -1, 0), 0);
        assert_eq!(bin(BinOp::Ge, ScalarTy::U32, -1, 0), 1);
        assert_eq!(bin(BinOp::Le, ScalarTy::I32, 3, 3), 1);
        assert_eq!(bin(BinOp::Gt, ScalarTy::I32, 3, 3), 0);
    }

    #[test]
    fn exec_casts() {
        assert_eq!(cast(I8, ScalarTy::U32, canon(I8, (-1i64) as u64)), 0xFFFF_FFFF);
        assert_eq!(cast(U8, ScalarTy::I32, 0xFF), 0xFF);
        assert_eq!(cast(ScalarTy::I64, ScalarTy::I32, 0x1_0000_0005), 5);
        assert_eq!(cast(ScalarTy::I32, ScalarTy::Bool, 4), 1);
        assert_eq!(cast(ScalarTy::Bool, ScalarTy::I32, 1), 1);
    }

    #[test]
    fn exec_opaque_is_a_function_of_operands() {
        let o = ScalarTy::Opaque;
        assert_eq!(binary(BinOp::Add, o, 1, 2, L), binary(BinOp::Add, o, 1, 2, L));
        assert_ne!(binary(BinOp::Add, o, 1, 2, L), binary(BinOp::Add, o, 1, 3, L));
        assert_eq!(binary(BinOp::Div, o, 1, 0, L).map(|_| ()), Ok(()));
        assert_eq!(unary(UnOp::Neg, o, 5), unary(UnOp::Neg, o, 5));
    }

    /// The checkers' folding (`BinOp::fold`, `UnOp::fold`, `ScalarTy::convert`, defined
    /// outside `exec`) against this executor's evaluation: equal wherever folding gives a
    /// value, and no value only where C leaves the result undefined.
    mod folding_agrees {
        use super::*;
        use proptest::prelude::*;

        const TYPES: [ScalarTy; 9] = [
            ScalarTy::Int { bits: 8, signed: true },
            ScalarTy::Int { bits: 8, signed: false },
            ScalarTy::Int { bits: 16, signed: true },
            ScalarTy::Int {
                bits: 16,
                signed: false,
            },
            ScalarTy::I32,
            ScalarTy::U32,
            ScalarTy::I64,
            ScalarTy::U64,
            ScalarTy::Bool,
        ];

        const OPS: [BinOp; 18] = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Rem,
            BinOp::Shl,
            BinOp::Shr,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::And,
            BinOp::Or,
        ];

        /// Operands that reach the corners (zero, -1, the extremes of every width, shift
        /// amounts around every width) as often as arbitrary bits.
        fn operand() -> impl Strategy<Value = i64> {
            prop_oneof![
                any::<i64>(),
                -70i64..70,
                prop::sample::select(vec![
                    i8::MIN as i64,
                    i8::MAX as i64,
                    u8::MAX as i64,
                    i16::MIN as i64,
                    u16::MAX as i64,
                    i32::MIN as i64,
                    i32::MAX as i64,
                    u32::MAX as i64,
                    i64::MIN,
                    i64::MAX,
                ]),
            ]
        }

        /// Whether C leaves `a op b` on type `ty` undefined (the operands as `exec` holds them).
        fn undefined(op: BinOp, ty: ScalarTy, b: u64) -> bool {
            match op {
                BinOp::Div | BinOp::Rem => b == 0,
                BinOp::Shl | BinOp::Shr => (ty.is_signed() && (b as i64) < 0) || b >= width(ty) as u64,
                _ => false,
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]

            #[test]
            fn binary_folding_agrees_with_exec(
                ty in prop::sample::select(TYPES.to_vec()),
                op in prop::sample::select(OPS.to_vec()),
                a in operand(),
                b in operand(),
            ) {
                // The lowering never writes `+` on `bool` (C promotes it to `int`), and there
                // the two differ: folding keeps the sum's truth, `exec` its low bit.
                prop_assume!(!(ty == ScalarTy::Bool && op == BinOp::Add));
                let (ca, cb) = (canon(ty, a as u64), canon(ty, b as u64));
                // Both sides get values of the type (a checker never holds anything else).
                let got = op.fold(ty, ca as i64, cb as i64);
                match binary(op, ty, ca, cb, L) {
                    _ if undefined(op, ty, cb) => prop_assert_eq!(got, None),
                    Ok(want) => prop_assert_eq!(got, Some(want as i64)),
                    Err(e) => prop_assert!(false, "exec failed on a defined operation: {:?}", e),
                }
            }

            #[test]
            fn unary_folding_and_conversions_agree_with_exec(
                from in prop::sample::select(TYPES.to_vec()),
                to in prop::sample::select(TYPES.to_vec()),
                a in operand(),
            ) {
                let ca = canon(from, a as u64);
                let x = ca as i64;
                prop_assert_eq!(UnOp::Not.fold(from, x), Some(unary(UnOp::Not, from, ca) as i64));
                for op in [UnOp::Neg, UnOp::BitNot] {
                    // `-` and `~` on a `bool`: C promotes it first; folding declines.
                    let want = from.is_int().then(|| unary(op, from, ca) as i64);
                    prop_assert_eq!(op.fold(from, x), want);
                }
                prop_assert_eq!(to.convert(from, x), Some(cast(from, to, ca) as i64));
            }

            #[test]
            fn opaque_values_never_fold(op in prop::sample::select(OPS.to_vec()), a in operand(), b in operand()) {
                prop_assert_eq!(op.fold(ScalarTy::Opaque, a, b), None);
                prop_assert_eq!(UnOp::Neg.fold(ScalarTy::Opaque, a), None);
                prop_assert_eq!(ScalarTy::I32.convert(ScalarTy::Opaque, a), None);
            }
        }
    }
}
