//! Evaluation of pure IR expressions for one thread.

use super::config::{ExecConfig, ExecError};
use super::value::{binary, canon, cast, mix, unary};
use crate::ir::{BinOp, Builtin, Expr, Kernel, Label, ScalarTy, UnOp, Var, VarId, VarKind};

/// Tags of the pseudo-random values of never-assigned locals and of [`Expr::Unknown`].
const UNINIT_TAG: u64 = 0x0DE7_E431;
const UNKNOWN_TAG: u64 = 0x0DE7_E432;
/// Tag of [`Expr::GroupValue`]'s pseudo-random value, one per lane group.
const GROUP_TAG: u64 = 0x0DE7_E433;

/// The CUDA warp size.
pub const WARP_SIZE: u32 = 32;

/// A value with its type (bits in canonical form for the type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    /// Canonical bits.
    pub bits: u64,
    /// Type.
    pub ty: ScalarTy,
}

impl Val {
    /// The value converted to `ty`.
    pub fn to(self, ty: ScalarTy) -> u64 {
        cast(self.ty, ty, self.bits)
    }
    /// The value as a C condition.
    pub fn truth(self) -> bool {
        self.bits != 0
    }
}

/// The launch geometry one thread sees.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// `threadIdx`.
    pub thread: [u32; 3],
    /// `blockIdx`.
    pub block: [u32; 3],
    /// `blockDim`.
    pub block_dim: [u32; 3],
    /// `gridDim`.
    pub grid_dim: [u32; 3],
}

/// What an expression of one thread can see.
pub struct Env<'a> {
    /// The kernel (variable types and kinds).
    pub k: &'a Kernel,
    /// The thread's variable values by `VarId` (`None`: never assigned).
    pub vars: &'a [Option<u64>],
    /// The thread's geometry.
    pub geo: &'a Geometry,
    /// The statement being executed (for error reports).
    pub label: Label,
}

/// The variable `v` of `k`, or an error for an id the kernel does not define.
pub fn var_of(k: &Kernel, v: VarId) -> Result<&Var, ExecError> {
    k.vars
        .get(v.0 as usize)
        .ok_or_else(|| ExecError::Malformed(format!("unknown variable {}", v.0)))
}

/// The static type of `e`.
pub fn type_of(k: &Kernel, e: &Expr) -> Result<ScalarTy, ExecError> {
    Ok(match e {
        Expr::Const(_, ty) | Expr::Cast(ty, _) | Expr::Opaque(ty, _) | Expr::Unknown(ty) | Expr::GroupValue(ty, _) => {
            *ty
        }
        Expr::Builtin(_) => ScalarTy::U32,
        Expr::Vote(..) => ScalarTy::I32,
        Expr::Var(v) => var_of(k, *v)?.ty,
        Expr::Un(UnOp::Not, ..) => ScalarTy::Bool,
        Expr::Un(_, ty, _) => *ty,
        Expr::Bin(op, _, _, _) if op.is_predicate() => ScalarTy::Bool,
        Expr::Bin(_, ty, _, _) => *ty,
        Expr::Select(_, a, _) => type_of(k, a)?,
    })
}

impl Env<'_> {
    /// Evaluates `e`. `&&`, `||` and `?:` evaluate only what C evaluates, so a guarded
    /// division by zero is not an error.
    pub fn eval(&self, e: &Expr) -> Result<Val, ExecError> {
        let val = |ty, bits| Val { bits, ty };
        Ok(match e {
            Expr::Const(v, ty) => val(*ty, canon(*ty, *v as u64)),
            Expr::Builtin(b) => val(ScalarTy::U32, self.builtin(*b) as u64),
            Expr::Var(v) => {
                let var = var_of(self.k, *v)?;
                match (self.vars.get(v.0 as usize).copied().flatten(), var.kind) {
                    (Some(bits), _) => val(var.ty, bits),
                    (None, VarKind::Param) => return Err(ExecError::MissingParam(var.name.clone())),
                    // Reading a never-assigned local: C leaves it indeterminate, and threads
                    // need not agree: a pseudo-random value per thread.
                    (None, _) => val(var.ty, canon(var.ty, self.per_thread(&[UNINIT_TAG, v.0 as u64]))),
                }
            }
            Expr::Un(op, ty, a) => {
                let a = self.eval(a)?.to(*ty);
                let ty = if *op == UnOp::Not { ScalarTy::Bool } else { *ty };
                val(ty, unary(*op, ty, a))
            }
            Expr::Bin(op @ (BinOp::And | BinOp::Or), ty, a, b) => {
                let a = self.eval(a)?.to(*ty) != 0;
                let r = match (op, a) {
                    (BinOp::And, false) => false,
                    (BinOp::Or, true) => true,
                    _ => self.eval(b)?.to(*ty) != 0,
                };
                val(ScalarTy::Bool, r as u64)
            }
            Expr::Bin(op, ty, a, b) => {
                let (a, b) = (self.eval(a)?.to(*ty), self.eval(b)?.to(*ty));
                let rty = if op.is_predicate() { ScalarTy::Bool } else { *ty };
                val(rty, binary(*op, *ty, a, b, self.label)?)
            }
            Expr::Cast(ty, a) => val(*ty, self.eval(a)?.to(*ty)),
            Expr::Select(c, a, b) => {
                let ty = type_of(self.k, a)?;
                let chosen = if self.eval(c)?.truth() { a } else { b };
                val(ty, self.eval(chosen)?.to(ty))
            }
            Expr::Opaque(ty, args) => {
                let mut parts = vec![0x0BA0_0E00 ^ opaque_tag(*ty)];
                for a in args {
                    parts.push(self.eval(a)?.bits);
                }
                val(*ty, canon(*ty, mix(&parts)))
            }
            Expr::Unknown(ty) => val(*ty, canon(*ty, self.per_thread(&[UNKNOWN_TAG, self.label.0 as u64]))),
            Expr::GroupValue(ty, width) => val(*ty, canon(*ty, self.per_group(*width))),
            Expr::Vote(..) => {
                return Err(ExecError::Malformed(format!(
                    "a vote outside the assignment right after its barrier (label {})",
                    self.label.0
                )))
            }
        })
    }

    /// A pseudo-random value of `parts` and this thread's coordinates (and block's).
    fn per_thread(&self, parts: &[u64]) -> u64 {
        let g = self.geo;
        let mut all = parts.to_vec();
        all.extend(g.thread.iter().chain(&g.block).map(|&x| x as u64));
        mix(&all)
    }

    /// A pseudo-random value of this statement and the thread's aligned group of `width`
    /// lanes (by linear index) and block: the same in every lane of the group.
    fn per_group(&self, width: u32) -> u64 {
        let g = self.geo;
        let [x, y, _] = g.block_dim.map(u64::from);
        let [tx, ty, tz] = g.thread.map(u64::from);
        let linear = tx + x * (ty + y * tz);
        let mut all = vec![GROUP_TAG, self.label.0 as u64, linear / u64::from(width.max(1))];
        all.extend(g.block.iter().map(|&b| b as u64));
        mix(&all)
    }

    fn builtin(&self, b: Builtin) -> u32 {
        let g = self.geo;
        match b {
            Builtin::ThreadIdx(d) => g.thread[d.index()],
            Builtin::BlockIdx(d) => g.block[d.index()],
            Builtin::BlockDim(d) => g.block_dim[d.index()],
            Builtin::GridDim(d) => g.grid_dim[d.index()],
            Builtin::WarpSize => WARP_SIZE,
        }
    }
}

/// Distinguishes opaque values of different types computed from the same operands.
fn opaque_tag(ty: ScalarTy) -> u64 {
    match ty {
        ScalarTy::Int { bits, signed } => ((bits as u64) << 1) | signed as u64,
        ScalarTy::Bool => 1000,
        ScalarTy::Opaque => 1001,
    }
}

/// Each variable's value before the kernel runs: a kernel parameter's from the launch (a float
/// parameter's bits are never interpreted: any uniform value will do), none for the others.
pub fn initial_values(k: &Kernel, cfg: &ExecConfig) -> Vec<Option<u64>> {
    k.vars
        .iter()
        .map(|v| match (v.kind, cfg.params.get(&v.name)) {
            (VarKind::Param, Some(&x)) => Some(cast(ScalarTy::I64, v.ty, x as u64)),
            (VarKind::Param, None) if v.ty == ScalarTy::Opaque => Some(mix(&[cfg.seed, 0x9A9A, v.id.0 as u64])),
            _ => None,
        })
        .collect()
}
