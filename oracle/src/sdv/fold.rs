//! Constant folding of IR expressions with C's fixed-width semantics. Used to decide, without a
//! solver, whether a guard is certainly true (a loop that always runs, an `if (1)`), which lets a
//! barrier in that region separate the accesses around it.

use crate::ir::*;
use std::collections::HashMap;

/// Known constant values of variables at a program point.
pub(crate) type Consts = HashMap<VarId, i64>;

/// Folds `e` to a constant (normalized to its type) when every leaf is known.
pub(crate) fn fold(k: &Kernel, consts: &Consts, e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(v, t) => match t {
            ScalarTy::Opaque => None,
            _ => Some(t.normalize(*v)),
        },
        Expr::Builtin(b) => builtin_value(&k.launch, *b),
        Expr::Var(v) => consts.get(v).copied(),
        Expr::Un(op, ty, a) => {
            let x = fold(k, consts, a)?;
            op.fold(*ty, x)
        }
        Expr::Bin(op, ty, a, b) => {
            let x = fold(k, consts, a)?;
            let y = fold(k, consts, b)?;
            op.fold(*ty, x, y)
        }
        Expr::Cast(ty, a) => ty.convert(a.ty(k), fold(k, consts, a)?),
        Expr::Select(c, a, b) => {
            if fold(k, consts, c)? != 0 {
                fold(k, consts, a)
            } else {
                fold(k, consts, b)
            }
        }
        Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => None,
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

/// Initial constants: scalar parameters given in the launch configuration.
pub(crate) fn param_consts(k: &Kernel) -> Consts {
    k.vars
        .iter()
        .filter(|v| v.kind == VarKind::Param)
        .filter_map(|v| k.launch.params.get(&v.name).map(|&x| (v.id, v.ty.normalize(x))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
