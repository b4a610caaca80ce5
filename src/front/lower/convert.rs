//! Conversions of pure IR expressions between C types, and byte-offset arithmetic.

use crate::front::ctype::CType;
use autosync_oracle::ir::*;

/// Converts a pure expression between types.
pub(crate) fn convert(e: Expr, from: &CType, to: &CType) -> Expr {
    let (from, to) = (from.unref(), to.unref());
    if from == to {
        return e;
    }
    match (from.is_integral(), to.is_integral()) {
        (true, true) => {
            if matches!(to, CType::Bool) {
                return to_bool(e, from);
            }
            if let Expr::Const(v, _) = e {
                return Expr::Const(fold_cast(v, to), to.scalar());
            }
            Expr::Cast(to.scalar(), Box::new(e))
        }
        _ if from.scalar() == to.scalar() => e,
        _ => Expr::Opaque(to.scalar(), vec![e]),
    }
}

/// A constant converted to an integer type (the IR's normalization of the type's scalar;
/// other types keep the value).
pub(crate) fn fold_cast(v: i64, to: &CType) -> i64 {
    match to {
        CType::Bool | CType::Int { .. } => to.scalar().normalize(v),
        _ => v,
    }
}

/// `e != 0` for integers; booleans as they are; anything else an opaque predicate.
pub(crate) fn to_bool(e: Expr, t: &CType) -> Expr {
    match t.unref() {
        CType::Bool => e,
        CType::Int { .. } => {
            if let Expr::Const(v, _) = e {
                return Expr::bool(v != 0);
            }
            let s = t.scalar();
            Expr::Bin(BinOp::Ne, s, Box::new(e), Box::new(Expr::Const(0, s)))
        }
        _ => Expr::Opaque(ScalarTy::Bool, vec![e]),
    }
}

/// `base + idx * size` on 64-bit byte offsets, folding constants.
pub(crate) fn add_offset(base: Expr, idx: Expr, size: i64) -> Expr {
    let scaled = match (&idx, size) {
        (_, 1) => idx,
        (Expr::Const(v, _), s) => Expr::Const(v.wrapping_mul(s), ScalarTy::U64),
        (_, s) => Expr::Bin(
            BinOp::Mul,
            ScalarTy::U64,
            Box::new(idx),
            Box::new(Expr::Const(s, ScalarTy::U64)),
        ),
    };
    match (&base, &scaled) {
        (Expr::Const(0, _), _) => scaled,
        (_, Expr::Const(0, _)) => base,
        (Expr::Const(a, _), Expr::Const(b, _)) => Expr::Const(a.wrapping_add(*b), ScalarTy::U64),
        _ => Expr::Bin(BinOp::Add, ScalarTy::U64, Box::new(base), Box::new(scaled)),
    }
}

/// The first line of a snippet, for messages.
pub(crate) fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.chars().count() > 60 {
        format!("{}…", l.chars().take(60).collect::<String>())
    } else {
        l.to_string()
    }
}
