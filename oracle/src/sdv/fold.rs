//! Constant folding of IR expressions with C's fixed-width semantics. Used to decide, without a
//! solver, whether a guard is certainly true (a loop that always runs, an `if (1)`), which lets a
//! barrier in that region separate the accesses around it.

use crate::ir::*;
use std::collections::HashMap;

/// Known constant values of variables at a program point.
pub(crate) type Consts = HashMap<VarId, i64>;

/// Reduces `v` to the value set of `ty` (wrap-around, sign extension, `bool` as 0/1).
pub(crate) fn normalize(v: i64, ty: ScalarTy) -> i64 {
    match ty {
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

/// The static type of an expression's value.
pub(crate) fn type_of(k: &Kernel, e: &Expr) -> ScalarTy {
    match e {
        Expr::Const(_, t) | Expr::Cast(t, _) | Expr::Opaque(t, _) | Expr::Unknown(t) => *t,
        Expr::Builtin(_) => ScalarTy::U32,
        Expr::Vote(..) => ScalarTy::I32,
        Expr::Var(v) => k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque),
        Expr::Un(UnOp::Not, _, _) => ScalarTy::Bool,
        Expr::Un(_, t, _) => *t,
        Expr::Bin(op, t, _, _) => {
            if op.is_predicate() {
                ScalarTy::Bool
            } else {
                *t
            }
        }
        Expr::Select(_, a, _) => type_of(k, a),
    }
}

fn is_signed(ty: ScalarTy) -> bool {
    matches!(ty, ScalarTy::Int { signed: true, .. })
}

/// Folds `e` to a constant (normalized to its type) when every leaf is known.
pub(crate) fn fold(k: &Kernel, consts: &Consts, e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(v, t) => match t {
            ScalarTy::Opaque => None,
            _ => Some(normalize(*v, *t)),
        },
        Expr::Builtin(b) => builtin_value(&k.launch, *b),
        Expr::Var(v) => consts.get(v).copied(),
        Expr::Un(op, ty, a) => {
            let x = fold(k, consts, a)?;
            match op {
                UnOp::Not => Some((x == 0) as i64),
                UnOp::Neg if ty.is_int() => Some(normalize(x.wrapping_neg(), *ty)),
                UnOp::BitNot if ty.is_int() => Some(normalize(!x, *ty)),
                _ => None,
            }
        }
        Expr::Bin(op, ty, a, b) => {
            let x = fold(k, consts, a)?;
            let y = fold(k, consts, b)?;
            fold_bin(*op, *ty, x, y)
        }
        Expr::Cast(ty, a) => {
            if *ty == ScalarTy::Opaque || type_of(k, a) == ScalarTy::Opaque {
                return None;
            }
            Some(normalize(fold(k, consts, a)?, *ty))
        }
        Expr::Select(c, a, b) => {
            if fold(k, consts, c)? != 0 {
                fold(k, consts, a)
            } else {
                fold(k, consts, b)
            }
        }
        Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) => None,
    }
}

/// The value of a built-in fixed by the launch configuration, if any.
pub(crate) fn builtin_value(l: &LaunchConfig, b: Builtin) -> Option<i64> {
    match b {
        Builtin::WarpSize => Some(32),
        Builtin::BlockDim(d) => l.block_dim.map(|v| v[d.index()] as i64),
        Builtin::GridDim(d) => l.grid_dim.map(|v| v[d.index()] as i64),
        Builtin::ThreadIdx(_) | Builtin::BlockIdx(_) => None,
    }
}

fn fold_bin(op: BinOp, ty: ScalarTy, x: i64, y: i64) -> Option<i64> {
    use BinOp::*;
    if ty == ScalarTy::Opaque {
        return None;
    }
    let bits = match ty {
        ScalarTy::Int { bits, .. } => bits as u32,
        _ => 1,
    };
    let signed = is_signed(ty);
    // Normalized operands; unsigned comparisons look at the bit pattern.
    let (x, y) = (normalize(x, ty), normalize(y, ty));
    let ux = (x as u64) & mask(bits);
    let uy = (y as u64) & mask(bits);
    let r = match op {
        Add => x.wrapping_add(y),
        Sub => x.wrapping_sub(y),
        Mul => x.wrapping_mul(y),
        Div | Rem if y == 0 => return None,
        Div if signed => x.wrapping_div(y),
        Div => (ux / uy) as i64,
        Rem if signed => x.wrapping_rem(y),
        Rem => (ux % uy) as i64,
        Shl | Shr if uy >= bits as u64 => return None,
        Shl => x.wrapping_shl(uy as u32),
        Shr if signed => x >> uy,
        Shr => (ux >> uy) as i64,
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Lt => cmp(signed, x, y, ux, uy, |o| o.is_lt()),
        Le => cmp(signed, x, y, ux, uy, |o| o.is_le()),
        Gt => cmp(signed, x, y, ux, uy, |o| o.is_gt()),
        Ge => cmp(signed, x, y, ux, uy, |o| o.is_ge()),
        Eq => (x == y) as i64,
        Ne => (x != y) as i64,
        And => (x != 0 && y != 0) as i64,
        Or => (x != 0 || y != 0) as i64,
    };
    Some(if op.is_predicate() { r } else { normalize(r, ty) })
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn cmp(signed: bool, x: i64, y: i64, ux: u64, uy: u64, f: impl Fn(std::cmp::Ordering) -> bool) -> i64 {
    let o = if signed { x.cmp(&y) } else { ux.cmp(&uy) };
    f(o) as i64
}

/// Initial constants: scalar parameters given in the launch configuration.
pub(crate) fn param_consts(k: &Kernel) -> Consts {
    k.vars
        .iter()
        .filter(|v| v.kind == VarKind::Param)
        .filter_map(|v| k.launch.params.get(&v.name).map(|&x| (v.id, normalize(x, v.ty))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdv_fold_wraps_and_compares_per_type() {
        assert_eq!(
            fold_bin(BinOp::Add, ScalarTy::I32, i32::MAX as i64, 1),
            Some(i32::MIN as i64)
        );
        assert_eq!(fold_bin(BinOp::Sub, ScalarTy::U32, 0, 1), Some(u32::MAX as i64));
        assert_eq!(fold_bin(BinOp::Lt, ScalarTy::U32, -1, 0), Some(0));
        assert_eq!(fold_bin(BinOp::Lt, ScalarTy::I32, -1, 0), Some(1));
        assert_eq!(fold_bin(BinOp::Shr, ScalarTy::I32, -8, 1), Some(-4));
        assert_eq!(fold_bin(BinOp::Shr, ScalarTy::U32, -8, 1), Some(0x7fff_fffc));
        assert_eq!(fold_bin(BinOp::Div, ScalarTy::I32, 1, 0), None);
    }

    #[test]
    fn sdv_fold_mul24_is_the_24_bit_product() {
        let k = Kernel {
            name: "k".into(),
            files: vec![],
            span: Span::DUMMY,
            vars: vec![],
            arrays: vec![],
            body: Block {
                label: Label(0),
                span: Span::DUMMY,
                braced: true,
                emit_start: true,
                stmts: vec![],
            },
            launch: LaunchConfig::default(),
            next_label: 1,
        };
        let samples = [
            0i64,
            1,
            -1,
            7,
            1 << 23,
            (1 << 23) - 1,
            1 << 24,
            0x7fff_ffff,
            -(1 << 23),
            123_456_789,
        ];
        for &a in &samples {
            for &b in &samples {
                let low = |x: i64| ((x as i32) << 8) >> 8;
                let want = (low(a) as i64).wrapping_mul(low(b) as i64) as i32 as i64;
                let got = fold(&k, &Consts::new(), &Expr::mul24(Expr::int(a), Expr::int(b), true));
                assert_eq!(got, Some(want), "__mul24({a}, {b})");
                let ulow = |x: i64| (x as u32 & 0xff_ffff) as u64;
                let uwant = (ulow(a) * ulow(b)) as u32 as i64;
                let (ua, ub) = (Expr::Const(a, ScalarTy::U32), Expr::Const(b, ScalarTy::U32));
                assert_eq!(
                    fold(&k, &Consts::new(), &Expr::mul24(ua, ub, false)),
                    Some(uwant),
                    "__umul24({a}, {b})"
                );
            }
        }
    }
}
