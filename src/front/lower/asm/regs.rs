//! The state one asm statement is lowered in ([`AsmCx`]: operands, PTX registers and what
//! they hold) and the values of PTX's special registers and types.

use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::lower::ptx::{self, Guard};
use autosync_oracle::ir::*;
use std::collections::HashMap;

/// What a register named in the asm text holds, as far as autosync follows it.
#[derive(Clone, Debug)]
pub(crate) enum Reg {
    /// The address operand `%N` plus a byte offset (through `cvta`, `mov`, `cvt`, `add`).
    Addr(usize, i64),
    /// A value computed exactly, of the given type.
    Val(Expr, ScalarTy),
    /// A predicate.
    Pred(Expr),
}

/// The state of one asm statement's lowering.
pub(crate) struct AsmCx {
    /// Operand expressions: outputs first, then inputs (`%0`, `%1`, ...).
    pub operands: Vec<NodeId>,
    /// Number of output operands.
    pub n_out: usize,
    /// Registers autosync follows (`%N` operands rewritten by the asm included).
    pub regs: HashMap<String, Reg>,
    /// The statement's span.
    pub span: Span,
}

/// The thread-dependent unknown an asm output holds when autosync does not compute it (an
/// opaque value with no thread-dependent operand would read as the same in every thread).
pub(crate) fn per_thread_unknown(t: ScalarTy) -> Expr {
    Expr::Opaque(t, vec![crate::front::lower::library::linear_tid()])
}

/// The value of a special register (`%%laneid`, `%tid.x`); per-thread unknowns for the ones
/// that are no stable function of the thread's coordinates (`%warpid` is a physical slot).
pub(super) fn special_value(name: &str) -> (Expr, ScalarTy) {
    let u = ScalarTy::U32;
    let dim = |s: &str| match s {
        "y" => Dim::Y,
        "z" => Dim::Z,
        _ => Dim::X,
    };
    let bin = |op, a: Expr, b: Expr| Expr::Bin(op, u, Box::new(a), Box::new(b));
    let k = |v: i64| Expr::Const(v, u);
    let lane = || bin(BinOp::Rem, crate::front::lower::library::linear_tid(), k(32));
    let (base, d) = name.split_once('.').unwrap_or((name, "x"));
    let e = match base {
        "tid" => Expr::Builtin(Builtin::ThreadIdx(dim(d))),
        "ntid" => Expr::Builtin(Builtin::BlockDim(dim(d))),
        "ctaid" => Expr::Builtin(Builtin::BlockIdx(dim(d))),
        "nctaid" => Expr::Builtin(Builtin::GridDim(dim(d))),
        // Warps are made of consecutive linear thread ids.
        "laneid" => lane(),
        "lanemask_eq" => bin(BinOp::Shl, k(1), lane()),
        "lanemask_lt" => bin(BinOp::Sub, bin(BinOp::Shl, k(1), lane()), k(1)),
        "lanemask_le" => bin(BinOp::Sub, bin(BinOp::Shl, k(2), lane()), k(1)),
        "lanemask_gt" => Expr::Un(
            UnOp::BitNot,
            u,
            Box::new(bin(BinOp::Sub, bin(BinOp::Shl, k(2), lane()), k(1))),
        ),
        "lanemask_ge" => Expr::Un(
            UnOp::BitNot,
            u,
            Box::new(bin(BinOp::Sub, bin(BinOp::Shl, k(1), lane()), k(1))),
        ),
        "clock64" | "globaltimer" => return (per_thread_unknown(ScalarTy::U64), ScalarTy::U64),
        _ => per_thread_unknown(u),
    };
    (e, u)
}

/// The scalar type of a PTX type suffix (`u32`, `s64`, `b16`); `None` for floats and others.
pub(super) fn int_type(seg: &str) -> Option<ScalarTy> {
    let signed = seg.starts_with('s');
    if !seg.starts_with(['u', 's', 'b']) || seg.contains('x') {
        return None;
    }
    let bytes = ptx::type_bytes(seg).filter(|b| *b <= 8)?;
    Some(ScalarTy::Int {
        bits: (bytes * 8) as u8,
        signed,
    })
}

/// The C type of an integer scalar type.
pub(super) fn ctype_of(t: ScalarTy) -> CType {
    match t {
        ScalarTy::Int { bits, signed } => CType::Int { bits, signed },
        ScalarTy::Bool => CType::Bool,
        ScalarTy::Opaque => CType::Float(32),
    }
}

/// The operand number of `%N`.
pub(crate) fn operand_index(o: &str) -> Option<usize> {
    o.strip_prefix('%').and_then(|r| r.parse().ok())
}

/// The condition a guard `@p` / `@!p` stands for: the predicate when the asm computed it from
/// known values, else an unknown (the instruction may or may not run).
pub(super) fn guard_cond(g: &Guard, cx: &AsmCx) -> Expr {
    let p = match cx.regs.get(&g.reg) {
        Some(Reg::Pred(e)) => e.clone(),
        _ => per_thread_unknown(ScalarTy::Bool),
    };
    if g.neg {
        Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(p))
    } else {
        p
    }
}

/// `a op b` at type `ty`.
pub(super) fn bin(op: BinOp, ty: ScalarTy, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, ty, Box::new(a), Box::new(b))
}
