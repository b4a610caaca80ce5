//! IR arithmetic, defined once: the type of an expression, the width, signedness and value
//! set of a scalar type, and constant folding of operators and conversions with C's
//! fixed-width semantics. Both checkers and their symbolic execution use these, so they
//! cannot disagree on what `x >> 31` is. (The reference executor in `exec/` keeps its own
//! definitions on purpose: it is what this module is tested against.)

use crate::ir::{BinOp, Expr, Kernel, ScalarTy, UnOp};

impl ScalarTy {
    /// Width in bits (`bool` is 1 bit, opaque values 64).
    pub fn width(self) -> u32 {
        match self {
            ScalarTy::Int { bits, .. } => bits as u32,
            ScalarTy::Bool => 1,
            ScalarTy::Opaque => 64,
        }
    }

    /// The width of an integer type; `None` for `bool` and opaque values.
    pub fn int_bits(self) -> Option<u8> {
        match self {
            ScalarTy::Int { bits, .. } => Some(bits),
            _ => None,
        }
    }

    /// Whether this is a signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, ScalarTy::Int { signed: true, .. })
    }

    /// Reduces `v` to this type's value set: truncation to the width, then sign or zero
    /// extension to 64 bits; `bool` as 0 or 1 (`!= 0`); opaque bits as they are.
    pub fn normalize(self, v: i64) -> i64 {
        match self {
            ScalarTy::Int { bits, signed } if bits < 64 => {
                let shift = 64 - bits as u32;
                if signed {
                    (v << shift) >> shift
                } else {
                    ((v as u64) << shift >> shift) as i64
                }
            }
            ScalarTy::Bool => (v != 0) as i64,
            _ => v,
        }
    }

    /// C's conversion of the value `v` of type `from` (normalized to it) to this type; `None`
    /// when either side is opaque (a float's conversion is not a reinterpretation of its bits).
    pub fn convert(self, from: ScalarTy, v: i64) -> Option<i64> {
        if self == ScalarTy::Opaque || from == ScalarTy::Opaque {
            return None;
        }
        Some(self.normalize(v))
    }
}

impl UnOp {
    /// The type of the result on an operand of type `ty` (`!` yields `bool`).
    pub fn result_ty(self, ty: ScalarTy) -> ScalarTy {
        match self {
            UnOp::Not => ScalarTy::Bool,
            _ => ty,
        }
    }

    /// Folds the operator on a known operand of type `ty` (normalized to it); `None` for `-`
    /// and `~` on anything but an integer (C promotes a `bool` first, and an opaque value's
    /// bits mean nothing).
    pub fn fold(self, ty: ScalarTy, x: i64) -> Option<i64> {
        match self {
            UnOp::Not => Some((x == 0) as i64),
            UnOp::Neg if ty.is_int() => Some(ty.normalize(x.wrapping_neg())),
            UnOp::BitNot if ty.is_int() => Some(ty.normalize(!x)),
            _ => None,
        }
    }
}

impl BinOp {
    /// The type of the result on operands of type `ty` (comparisons and connectives yield
    /// `bool`).
    pub fn result_ty(self, ty: ScalarTy) -> ScalarTy {
        if self.is_predicate() {
            ScalarTy::Bool
        } else {
            ty
        }
    }

    /// Folds the operator on known operands of type `ty` (normalized first), the result
    /// normalized to [`BinOp::result_ty`]. Signed overflow wraps (`INT_MIN / -1 == INT_MIN`),
    /// comparisons follow the type's signedness. `None` where C leaves the result undefined
    /// (division by zero, a shift by a negative amount or by the width or more) and on opaque
    /// operands.
    pub fn fold(self, ty: ScalarTy, x: i64, y: i64) -> Option<i64> {
        use BinOp::*;
        if ty == ScalarTy::Opaque {
            return None;
        }
        let (x, y) = (ty.normalize(x), ty.normalize(y));
        let signed = ty.is_signed();
        // Normalized unsigned values are zero-extended, so their bits compare as unsigned.
        let lt = |a: i64, b: i64| if signed { a < b } else { (a as u64) < (b as u64) };
        let r = match self {
            Add => x.wrapping_add(y),
            Sub => x.wrapping_sub(y),
            Mul => x.wrapping_mul(y),
            Div | Rem if y == 0 => return None,
            Div if signed => x.wrapping_div(y),
            Div => ((x as u64) / (y as u64)) as i64,
            Rem if signed => x.wrapping_rem(y),
            Rem => ((x as u64) % (y as u64)) as i64,
            // A negative signed amount is a huge unsigned one: out of range either way.
            Shl | Shr if y as u64 >= ty.width() as u64 => return None,
            Shl => x << y,
            Shr if signed => x >> y,
            Shr => ((x as u64) >> y) as i64,
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            Lt => return Some(lt(x, y) as i64),
            Le => return Some(!lt(y, x) as i64),
            Gt => return Some(lt(y, x) as i64),
            Ge => return Some(!lt(x, y) as i64),
            Eq => return Some((x == y) as i64),
            Ne => return Some((x != y) as i64),
            And => return Some((x != 0 && y != 0) as i64),
            Or => return Some((x != 0 || y != 0) as i64),
        };
        Some(ty.normalize(r))
    }
}

impl Expr {
    /// The static type of the expression's value in kernel `k` (a variable `k` does not
    /// define is opaque).
    pub fn ty(&self, k: &Kernel) -> ScalarTy {
        match self {
            Expr::Const(_, t) | Expr::Cast(t, _) | Expr::Opaque(t, _) | Expr::Unknown(t) | Expr::GroupValue(t, _) => *t,
            Expr::Builtin(_) => ScalarTy::U32,
            Expr::Vote(..) => ScalarTy::I32,
            Expr::Var(v) => k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque),
            Expr::Un(op, t, _) => op.result_ty(*t),
            Expr::Bin(op, t, _, _) => op.result_ty(*t),
            Expr::Select(_, a, _) => a.ty(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I8: ScalarTy = ScalarTy::Int { bits: 8, signed: true };
    const U16: ScalarTy = ScalarTy::Int {
        bits: 16,
        signed: false,
    };

    #[test]
    fn arith_normalize_wraps_per_type() {
        assert_eq!(ScalarTy::U32.normalize(0x1_0000_0001), 1);
        assert_eq!(ScalarTy::I32.normalize(0xffff_ffff), -1);
        assert_eq!(I8.normalize(0x80), -128);
        assert_eq!(U16.normalize(-1), 0xffff);
        assert_eq!(ScalarTy::Bool.normalize(2), 1);
        assert_eq!(ScalarTy::U64.normalize(-1), -1);
    }

    #[test]
    fn arith_fold_wraps_and_compares_per_type() {
        let f = |op: BinOp, ty, x, y| op.fold(ty, x, y);
        assert_eq!(f(BinOp::Add, ScalarTy::I32, i32::MAX as i64, 1), Some(i32::MIN as i64));
        assert_eq!(f(BinOp::Sub, ScalarTy::U32, 0, 1), Some(u32::MAX as i64));
        assert_eq!(f(BinOp::Lt, ScalarTy::U32, -1, 0), Some(0));
        assert_eq!(f(BinOp::Lt, ScalarTy::I32, -1, 0), Some(1));
        assert_eq!(f(BinOp::Lt, ScalarTy::U64, -1, 0), Some(0));
        assert_eq!(f(BinOp::Shr, ScalarTy::I32, -8, 1), Some(-4));
        assert_eq!(f(BinOp::Shr, ScalarTy::U32, -8, 1), Some(0x7fff_fffc));
        assert_eq!(f(BinOp::Shr, ScalarTy::U32, -1, 28), Some(15));
        assert_eq!(f(BinOp::Shr, ScalarTy::I32, -1, 31), Some(-1));
        assert_eq!(f(BinOp::Div, ScalarTy::I32, i32::MIN as i64, -1), Some(i32::MIN as i64));
        assert_eq!(f(BinOp::Rem, ScalarTy::I32, i32::MIN as i64, -1), Some(0));
        assert_eq!(f(BinOp::Div, ScalarTy::I64, i64::MIN, -1), Some(i64::MIN));
    }

    #[test]
    fn arith_undefined_results_do_not_fold() {
        assert_eq!(BinOp::Div.fold(ScalarTy::I32, 1, 0), None);
        assert_eq!(BinOp::Rem.fold(ScalarTy::U64, 1, 0), None);
        assert_eq!(BinOp::Shl.fold(ScalarTy::I32, 1, 32), None);
        assert_eq!(BinOp::Shr.fold(ScalarTy::U64, 1, 64), None);
        assert_eq!(BinOp::Shl.fold(ScalarTy::I32, 1, -1), None);
        assert_eq!(BinOp::Shl.fold(ScalarTy::U64, 1, -1), None);
        assert_eq!(BinOp::Add.fold(ScalarTy::Opaque, 1, 2), None);
        assert_eq!(BinOp::Eq.fold(ScalarTy::Opaque, 1, 1), None);
        assert_eq!(UnOp::Neg.fold(ScalarTy::Opaque, 1), None);
        assert_eq!(UnOp::BitNot.fold(ScalarTy::Bool, 1), None);
        assert_eq!(ScalarTy::I32.convert(ScalarTy::Opaque, 1), None);
        assert_eq!(ScalarTy::Opaque.convert(ScalarTy::I32, 1), None);
    }

    #[test]
    fn arith_unary_and_conversions() {
        assert_eq!(UnOp::Neg.fold(ScalarTy::I32, i32::MIN as i64), Some(i32::MIN as i64));
        assert_eq!(UnOp::Neg.fold(ScalarTy::U32, 1), Some(u32::MAX as i64));
        assert_eq!(UnOp::BitNot.fold(I8, 0), Some(-1));
        assert_eq!(UnOp::Not.fold(ScalarTy::I32, 5), Some(0));
        assert_eq!(ScalarTy::U32.convert(I8, -1), Some(u32::MAX as i64));
        assert_eq!(ScalarTy::Bool.convert(ScalarTy::I32, 4), Some(1));
    }

    #[test]
    fn arith_result_types() {
        assert_eq!(BinOp::Lt.result_ty(ScalarTy::I32), ScalarTy::Bool);
        assert_eq!(BinOp::Shr.result_ty(ScalarTy::U64), ScalarTy::U64);
        assert_eq!(UnOp::Not.result_ty(ScalarTy::I32), ScalarTy::Bool);
        assert_eq!(UnOp::Neg.result_ty(I8), I8);
    }
}
