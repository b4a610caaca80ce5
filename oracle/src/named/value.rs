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
            Sym::Un(op, t, _) => op.result_ty(*t),
            Sym::Bin(op, t, _, _) => op.result_ty(*t),
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
    /// A concrete value, normalized to its type ([`ScalarTy::normalize`]).
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
