//! Butterfly reductions over the lanes of a warp:
//! `for (int o = W/2; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffff, x, o, W);`.
//!
//! Each step combines a lane's value with its xor partner's by a commutative operation, so
//! partners hold the same bits after it, and after steps whose masks are every power of two
//! below `g` all lanes of each aligned group of `g` lanes do. The checker treats shuffles as
//! unknown values; without this, every lane storing the reduced value to one address looks
//! like a write-write race. Recognized by the Clang AST's shape only (the names of the CUDA
//! intrinsics and of the operators), never by the name of the function around it.

use super::lowerer::Lowerer;
use super::unroll::refers_to;
use super::values::Binding;
use crate::front::ast::{BinaryOp, NodeId, NodeKind};
use crate::front::ctype::CType;
use autosync_oracle::ir::{Expr, Op};

/// The most trips a reduction loop takes (32 lanes: 5).
const MAX_TRIPS: usize = 8;

impl Lowerer<'_> {
    /// After `for` loop `f` is lowered: when it is a butterfly reduction, assigns each reduced
    /// variable the group's one value ([`Expr::GroupValue`]).
    pub(crate) fn after_butterfly(&mut self, f: NodeId) {
        let Some((targets, width)) = self.butterfly(f) else {
            return;
        };
        for t in targets {
            if let Some(Binding::Var(v, ty)) = self.env.get(&t).cloned() {
                self.ops.push(Op::Assign(v, Expr::GroupValue(ty.scalar(), width)));
            }
        }
        self.flush(false);
    }

    /// The variables loop `f` reduces and the width of the lane groups that then hold one
    /// value each; `None` unless the loop is exactly a butterfly reduction.
    fn butterfly(&self, f: NodeId) -> Option<(Vec<u64>, u32)> {
        let ast = self.ast;
        let (var, trips) = self.power_of_two_trips(f)?;
        let body = ast.child(f, 4)?;
        let steps: Vec<NodeId> = if ast.kind(body) == NodeKind::CompoundStmt {
            ast.children(body).collect()
        } else {
            vec![body]
        };
        let mut targets = Vec::new();
        let mut shuffle_width = 32;
        for s in steps {
            let (t, w) = self.butterfly_step(s, var)?;
            let scalar = matches!(self.env.get(&t), Some(Binding::Var(..)));
            if t == var || targets.contains(&t) || !scalar || self.addressed.contains(&t) {
                return None;
            }
            targets.push(t);
            shuffle_width = shuffle_width.min(w);
        }
        // The masks must be exactly the powers of two below the group's width, each once.
        let group = trips.iter().max()? * 2;
        let mut sorted = trips.clone();
        sorted.sort_unstable();
        let expected: Vec<u32> = (0..).map(|b| 1u32 << b).take_while(|&m| m < group).collect();
        (!targets.is_empty() && sorted == expected && group <= shuffle_width).then_some((targets, group))
    }

    /// The loop variable of `for (int o = a; o > 0; o >>= 1)` (or `/= 2`, `<<= 1`, `*= 2`,
    /// `o = o >> 1`, conditions `>`, `>=`, `!=`, `<`, `<=` against a constant) and the values it
    /// takes, when they are all powers of two.
    fn power_of_two_trips(&self, f: NodeId) -> Option<(u64, Vec<u32>)> {
        let ast = self.ast;
        let (_, var, start) = self.constant_start(f)?;
        let cond = ast.child(f, 2)?;
        let [l, r] = ast.children(cond).collect::<Vec<_>>()[..] else {
            return None;
        };
        if ast.kind(cond) != NodeKind::BinaryOperator || refers_to(self, l) != Some(var) {
            return None;
        }
        let (op, bound) = (ast.binary_op(cond)?, self.const_eval(r, 0)?);
        let step = self.halving_step(ast.child(f, 3)?, var)?;
        let mut trips = Vec::new();
        let mut o = start;
        while holds(op, o, bound)? {
            if trips.len() == MAX_TRIPS || o <= 0 || o > 16 || (o & (o - 1)) != 0 {
                return None;
            }
            trips.push(o as u32);
            o = step(o);
        }
        Some((var, trips))
    }

    /// The update of the loop variable: halving or doubling.
    fn halving_step(&self, s: NodeId, var: u64) -> Option<fn(i64) -> i64> {
        let ast = self.ast;
        let kids: Vec<NodeId> = ast.children(s).collect();
        let (op, operand) = match (ast.kind(s), &kids[..]) {
            (NodeKind::CompoundAssignOperator, [v, c]) if refers_to(self, *v) == Some(var) => (ast.binary_op(s)?, *c),
            (NodeKind::BinaryOperator, [v, e]) if ast.binary_op(s)? == BinaryOp::Assign => {
                let e = self.strip(*e);
                let [a, c] = ast.children(e).collect::<Vec<_>>()[..] else {
                    return None;
                };
                if refers_to(self, *v) != Some(var) || refers_to(self, a) != Some(var) {
                    return None;
                }
                (ast.binary_op(e)?, c)
            }
            _ => return None,
        };
        match (op, self.const_eval(operand, 0)?) {
            (BinaryOp::Shr, 1) | (BinaryOp::Div, 2) => Some(|o| o / 2),
            (BinaryOp::Shl, 1) | (BinaryOp::Mul, 2) => Some(|o| o * 2),
            _ => None,
        }
    }

    /// One step `x op= shfl_xor(x, o)` or `x = x op shfl_xor(x, o)` (either order, or
    /// `max`/`min` of integers): the variable and the shuffle's width.
    fn butterfly_step(&self, s: NodeId, var: u64) -> Option<(u64, u32)> {
        let ast = self.ast;
        let kids: Vec<NodeId> = ast.children(s).collect();
        let [l, r] = kids[..] else { return None };
        let t = refers_to(self, l)?;
        let ty = self.type_of(l);
        match ast.kind(s) {
            NodeKind::CompoundAssignOperator if commutes(ast.binary_op(s)?, &ty) => {
                Some((t, self.xor_shuffle(r, t, var)?))
            }
            NodeKind::BinaryOperator if ast.binary_op(s)? == BinaryOp::Assign => {
                let e = self.strip(r);
                let operands: Vec<NodeId> = match ast.kind(e) {
                    NodeKind::BinaryOperator if commutes(ast.binary_op(e)?, &ty) => ast.children(e).collect(),
                    NodeKind::CallExpr if matches!(ty, CType::Int { .. }) && self.is_int_min_max(e) => {
                        self.expr_children(e)[1..].to_vec()
                    }
                    _ => return None,
                };
                let [a, b] = operands[..] else { return None };
                let w = if refers_to(self, a) == Some(t) {
                    self.xor_shuffle(b, t, var)?
                } else if refers_to(self, b) == Some(t) {
                    self.xor_shuffle(a, t, var)?
                } else {
                    return None;
                };
                Some((t, w))
            }
            _ => None,
        }
    }

    /// `__shfl_xor_sync(0xffffffff, x, o[, width])` of variable `t` with lane mask `var`: the
    /// width (32 when not given).
    fn xor_shuffle(&self, n: NodeId, t: u64, var: u64) -> Option<u32> {
        let ast = self.ast;
        let call = self.strip(n);
        if ast.kind(call) != NodeKind::CallExpr || self.callee_name(call)? != "__shfl_xor_sync" {
            return None;
        }
        let args = self.expr_children(call)[1..].to_vec();
        let (mask, value, lane) = (*args.first()?, *args.get(1)?, *args.get(2)?);
        let full = matches!(self.const_eval(mask, 0), Some(-1 | 0xffff_ffff));
        if !full || refers_to(self, value) != Some(t) || refers_to(self, lane) != Some(var) {
            return None;
        }
        let width = match args.get(3) {
            // The declared default is `warpSize`.
            None => 32,
            Some(&w) if ast.kind(w) == NodeKind::CXXDefaultArgExpr => 32,
            Some(&w) => self.const_eval(w, 0)?,
        };
        (width > 0 && width <= 32 && (width & (width - 1)) == 0).then_some(width as u32)
    }

    /// Whether call `e` is `max`/`min` (CUDA's integer overloads or `std::`'s).
    fn is_int_min_max(&self, e: NodeId) -> bool {
        let name = self.callee_name(e).unwrap_or("");
        let base = name.strip_prefix("std::").unwrap_or(name);
        matches!(
            base,
            "max" | "min" | "umax" | "umin" | "llmax" | "llmin" | "ullmax" | "ullmin"
        )
    }

    /// The qualified name of the function call `e` names directly.
    fn callee_name(&self, e: NodeId) -> Option<&str> {
        let ast = self.ast;
        let c = self.strip(*self.expr_children(e).first()?);
        let id = (ast.kind(c) == NodeKind::DeclRefExpr).then(|| ast.node(c).attrs.referenced.map(|r| r.id))??;
        ast.qual_name(id)
    }
}

/// Whether `a op b` and `b op a` have the same bits for values of type `ty`: integer `+ * & |
/// ^` (wrapping), and `float` `+ *` (IEEE operations commute; NVIDIA GPUs return the canonical
/// NaN for single-precision NaN results). Not `double` (NaN payloads may follow an operand) nor
/// `fmaxf` (either zero may come back from `fmaxf(+0, -0)`).
fn commutes(op: BinaryOp, ty: &CType) -> bool {
    use BinaryOp::*;
    match ty {
        CType::Int { .. } => matches!(op, Add | Mul | BitAnd | BitOr | BitXor),
        CType::Float(32) => matches!(op, Add | Mul),
        _ => false,
    }
}

/// Whether the loop condition `o op bound` holds.
fn holds(op: BinaryOp, o: i64, bound: i64) -> Option<bool> {
    Some(match op {
        BinaryOp::Gt => o > bound,
        BinaryOp::Ge => o >= bound,
        BinaryOp::Ne => o != bound,
        BinaryOp::Lt => o < bound,
        BinaryOp::Le => o <= bound,
        _ => return None,
    })
}
