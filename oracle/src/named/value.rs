//! Values of the per-warp emulation: concrete integers, or symbolic terms over unknowns
//! (unset parameters, values read from memory, opaque computations, havocked loop variables).

use crate::ir::{BinOp, ScalarTy, UnOp};
use std::rc::Rc;

/// A symbolic term. Unknowns are numbered; the same number means the same value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Sym {
    /// A constant of a type.
    Const(i64, ScalarTy),
    /// Unknown number `n` of a type.
    Unknown(u32, ScalarTy),
    /// Unary operation on the given type.
    Un(UnOp, ScalarTy, Rc<Sym>),
    /// Binary operation whose operands have the given type.
    Bin(BinOp, ScalarTy, Rc<Sym>, Rc<Sym>),
    /// Conversion to the given type.
    Cast(ScalarTy, Rc<Sym>),
    /// `c ? a : b`.
    Select(Rc<Sym>, Rc<Sym>, Rc<Sym>),
}

impl Sym {
    /// The type of the term's value.
    pub(crate) fn ty(&self) -> ScalarTy {
        match self {
            Sym::Const(_, t) | Sym::Unknown(_, t) | Sym::Cast(t, _) => *t,
            Sym::Un(UnOp::Not, _, _) => ScalarTy::Bool,
            Sym::Un(_, t, _) => *t,
            Sym::Bin(op, t, _, _) => {
                if op.is_predicate() {
                    ScalarTy::Bool
                } else {
                    *t
                }
            }
            Sym::Select(_, a, _) => a.ty(),
        }
    }
    /// Calls `f` on every unknown of the term.
    pub(crate) fn for_each_unknown(&self, f: &mut impl FnMut(u32)) {
        match self {
            Sym::Const(..) => {}
            Sym::Unknown(n, _) => f(*n),
            Sym::Un(_, _, a) | Sym::Cast(_, a) => a.for_each_unknown(f),
            Sym::Bin(_, _, a, b) => {
                a.for_each_unknown(f);
                b.for_each_unknown(f);
            }
            Sym::Select(c, a, b) => {
                c.for_each_unknown(f);
                a.for_each_unknown(f);
                b.for_each_unknown(f);
            }
        }
    }
}

/// A value: known (normalized to its type) or a symbolic term.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    /// A concrete value, normalized by [`norm`].
    K(i64),
    /// A symbolic value.
    S(Rc<Sym>),
}

impl Val {
    /// The value as a term of type `ty`.
    pub(crate) fn term(&self, ty: ScalarTy) -> Rc<Sym> {
        match self {
            Val::K(v) => Rc::new(Sym::Const(*v, ty)),
            Val::S(s) => s.clone(),
        }
    }
}

/// Width in bits of a type (booleans are 1 bit, opaque values 64).
pub(crate) fn width(ty: ScalarTy) -> u32 {
    match ty {
        ScalarTy::Int { bits, .. } => bits as u32,
        ScalarTy::Bool => 1,
        ScalarTy::Opaque => 64,
    }
}

/// Whether a type is a signed integer.
pub(crate) fn signed(ty: ScalarTy) -> bool {
    matches!(ty, ScalarTy::Int { signed: true, .. })
}

/// Normalizes `v` to `ty`: truncation to the width, then sign or zero extension to 64 bits.
pub(crate) fn norm(v: i64, ty: ScalarTy) -> i64 {
    match ty {
        ScalarTy::Int { bits, signed } if bits < 64 => {
            let sh = 64 - bits as u32;
            if signed {
                (v << sh) >> sh
            } else {
                ((v as u64) << sh >> sh) as i64
            }
        }
        ScalarTy::Bool => (v != 0) as i64,
        _ => v,
    }
}

/// Folds a unary operation on a known operand.
pub(crate) fn fold_un(op: UnOp, ty: ScalarTy, a: i64) -> i64 {
    match op {
        UnOp::Neg => norm(a.wrapping_neg(), ty),
        UnOp::BitNot => norm(!a, ty),
        UnOp::Not => (a == 0) as i64,
    }
}

/// Folds a binary operation on known operands; `None` where C leaves the result undefined
/// (division by zero, over-wide shifts): the value then becomes unknown.
pub(crate) fn fold_bin(op: BinOp, ty: ScalarTy, a: i64, b: i64) -> Option<i64> {
    let (a, b) = (norm(a, ty), norm(b, ty));
    let s = signed(ty);
    let w = width(ty);
    let lt = |x: i64, y: i64| if s { x < y } else { (x as u64) < (y as u64) };
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div | BinOp::Rem if b == 0 => return None,
        BinOp::Div if s => a.wrapping_div(b),
        BinOp::Div => ((a as u64) / (b as u64)) as i64,
        BinOp::Rem if s => a.wrapping_rem(b),
        BinOp::Rem => ((a as u64) % (b as u64)) as i64,
        BinOp::Shl | BinOp::Shr if b < 0 || b as u64 >= w as u64 => return None,
        BinOp::Shl => a << b,
        BinOp::Shr if s => a >> b,
        BinOp::Shr => ((a as u64) >> b) as i64,
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Lt => return Some(lt(a, b) as i64),
        BinOp::Le => return Some(!lt(b, a) as i64),
        BinOp::Gt => return Some(lt(b, a) as i64),
        BinOp::Ge => return Some(!lt(a, b) as i64),
        BinOp::Eq => return Some((a == b) as i64),
        BinOp::Ne => return Some((a != b) as i64),
        BinOp::And => return Some((a != 0 && b != 0) as i64),
        BinOp::Or => return Some((a != 0 || b != 0) as i64),
    };
    Some(norm(r, ty))
}

/// Where an unknown comes from (for messages and witnesses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A scalar parameter without a concrete value (shared by all threads).
    Param(String),
    /// A built-in not fixed by the launch configuration (`blockIdx.x`, `gridDim.y`).
    Builtin(String),
    /// A value loaded from an array.
    Read(String),
    /// A local variable used before assignment, or havocked by a loop abstraction.
    Var(String),
    /// An uninterpreted computation or undefined arithmetic.
    Opaque,
}

/// The table of unknowns created during emulation.
#[derive(Default, Debug)]
pub(crate) struct Unknowns {
    /// Origin and type of unknown `n`.
    pub(crate) info: Vec<(Origin, ScalarTy)>,
}

impl Unknowns {
    /// A fresh unknown of type `ty`.
    pub(crate) fn fresh(&mut self, origin: Origin, ty: ScalarTy) -> Val {
        let n = self.info.len() as u32;
        self.info.push((origin, ty));
        Val::S(Rc::new(Sym::Unknown(n, ty)))
    }
    /// A human-readable description of what a symbolic value depends on, preferring a
    /// parameter name (the one thing the user can supply).
    pub(crate) fn blame(&self, s: &Sym) -> Blame {
        let mut found: Option<Blame> = None;
        s.for_each_unknown(&mut |n| {
            let b = match &self.info[n as usize].0 {
                Origin::Param(p) => Blame::Param(p.clone()),
                Origin::Builtin(b) => Blame::Other(format!("`{b}`")),
                Origin::Read(a) => Blame::Other(format!("a value read from `{a}`")),
                Origin::Var(v) => Blame::Other(format!("the value of `{v}`")),
                Origin::Opaque => Blame::Other("an uninterpreted computation".into()),
            };
            if found.is_none() || matches!(b, Blame::Param(_)) && !matches!(found, Some(Blame::Param(_))) {
                found = Some(b);
            }
        });
        found.unwrap_or(Blame::Other("an unknown value".into()))
    }
}

/// What an undecidable condition depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Blame {
    /// A kernel parameter the user can give with `--param`.
    Param(String),
    /// Something else (description).
    Other(String),
}

impl Blame {
    /// The message of an inconclusive check caused by this dependency.
    pub(crate) fn message(&self, what: &str) -> String {
        match self {
            Blame::Param(p) => format!("{what} needs a concrete value for {p} (use --param {p}=V)"),
            Blame::Other(d) => {
                format!("{what} depends on {d}, which the emulation cannot evaluate")
            }
        }
    }
}

#[cfg(test)]
mod t {
    use super::*;

    #[test]
    fn wraps_per_type() {
        assert_eq!(norm(0x1_0000_0001, ScalarTy::U32), 1);
        assert_eq!(norm(0xffff_ffff, ScalarTy::I32), -1);
        assert_eq!(
            fold_bin(BinOp::Add, ScalarTy::I32, i32::MAX as i64, 1),
            Some(i32::MIN as i64)
        );
        assert_eq!(fold_bin(BinOp::Lt, ScalarTy::U32, -1, 1), Some(0));
        assert_eq!(fold_bin(BinOp::Lt, ScalarTy::I32, -1, 1), Some(1));
        assert_eq!(fold_bin(BinOp::Div, ScalarTy::I32, 1, 0), None);
        assert_eq!(fold_bin(BinOp::Shr, ScalarTy::U32, -1, 28), Some(15));
    }
}
