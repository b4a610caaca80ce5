//! `#pragma unroll` loops of library code (CUB's `for (int ITEM = 0; ITEM < ITEMS_PER_THREAD;
//! ++ITEM)`) with a constant trip count are lowered as that many copies of the body, the loop
//! variable a constant in each, as nvcc compiles them. The checker then sees each item's
//! accesses and pointers exactly instead of a loop summary. Only in system headers: barriers
//! are never written there, so no barrier position of the user's code is copied.

use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{BinaryOp, NodeId, NodeKind, Opcode, UnaryOp};
use crate::front::error::FResult;

/// The longest loop unrolled.
const MAX_TRIP: i64 = 16;

impl Lowerer<'_> {
    /// Lowers `for` loop `f` (under `#pragma unroll`, the attributed statement `attributed`)
    /// unrolled, when it is library code of the shape above. Whether it did.
    pub(crate) fn try_unroll(&mut self, attributed: NodeId, f: NodeId) -> FResult<bool> {
        let ast = self.ast;
        if !ast.has_attr(attributed, NodeKind::LoopHintAttr) || !self.node_is_system(f) {
            return Ok(false);
        }
        let Some((d, var, start, trip)) = self.constant_trip(f) else {
            return Ok(false);
        };
        let Some(body) = ast.child(f, 4) else { return Ok(false) };
        if has_jump(ast, body)
            || super::kernels::assigned_params(ast, body).contains(&var)
            || self.addressed.contains(&var)
        {
            return Ok(false);
        }
        let ty = self.type_of(d);
        self.flush(false);
        for i in 0..trip {
            self.env.insert(var, Binding::Const(start + i, ty.clone()));
            let blk = self.body_block(Some(body))?;
            if let Some(stmts) = self.blocks.last_mut() {
                stmts.extend(blk.stmts);
            }
        }
        self.env.remove(&var);
        Ok(true)
    }

    /// `(declaration, its id, first value, trip count)` of `for (int v = a; v < b; ++v)` (or
    /// `v <= b`, `v++`, `v += 1`) with constant `a` and `b`.
    fn constant_trip(&self, f: NodeId) -> Option<(NodeId, u64, i64, i64)> {
        let ast = self.ast;
        let (d, var, start) = self.constant_start(f)?;
        let cond = ast.child(f, 2)?;
        let op = ast.binary_op(cond)?;
        let [l, r] = ast.children(cond).collect::<Vec<_>>()[..] else {
            return None;
        };
        if refers_to(self, l) != Some(var) {
            return None;
        }
        let end = self.const_eval(r, 0)?;
        let trip = match op {
            BinaryOp::Lt => end - start,
            BinaryOp::Le => end - start + 1,
            _ => return None,
        };
        let step_ok = ast.child(f, 3).is_some_and(|s| is_increment(self, s, var));
        (step_ok && (0..=MAX_TRIP).contains(&trip)).then_some((d, var, start, trip))
    }

    /// `(declaration, its id, first value)` of a `for` loop whose init declares one variable
    /// with a constant initializer (`for (int v = a; ...)`).
    pub(super) fn constant_start(&self, f: NodeId) -> Option<(NodeId, u64, i64)> {
        let ast = self.ast;
        let init = ast.child(f, 0).filter(|&i| ast.kind(i) == NodeKind::DeclStmt)?;
        let mut decls = ast.children(init);
        let (d, None) = (decls.next()?, decls.next()) else {
            return None;
        };
        let start = self.const_eval(ast.var_init(d)?, 0)?;
        Some((d, ast.node(d).id, start))
    }

    /// Whether node `n` comes from a system header.
    fn node_is_system(&self, n: NodeId) -> bool {
        let ast = self.ast;
        let node = ast.node(n);
        let at = node
            .loc
            .map(|l| l.expansion)
            .or_else(|| node.range.map(|r| r.begin.expansion));
        at.is_some_and(|p| ast.files.get(p.file.0 as usize).is_some_and(|f| f.system))
    }
}

/// The declaration a (possibly cast) reference names.
pub(super) fn refers_to(lw: &Lowerer, mut n: NodeId) -> Option<u64> {
    let ast = lw.ast;
    while matches!(ast.kind(n), NodeKind::ImplicitCastExpr | NodeKind::ParenExpr) {
        n = ast.children(n).next()?;
    }
    (ast.kind(n) == NodeKind::DeclRefExpr).then(|| ast.node(n).attrs.referenced.map(|r| r.id))?
}

/// `++v`, `v++` or `v += 1`.
fn is_increment(lw: &Lowerer, s: NodeId, var: u64) -> bool {
    let ast = lw.ast;
    let Some(op) = ast.node(s).attrs.opcode else {
        return false;
    };
    let kids: Vec<NodeId> = ast.children(s).collect();
    match (ast.kind(s), op, &kids[..]) {
        (NodeKind::UnaryOperator, Opcode::Unary(UnaryOp::Inc), [v]) => refers_to(lw, *v) == Some(var),
        (NodeKind::CompoundAssignOperator, Opcode::Binary(BinaryOp::Add), [v, one]) => {
            refers_to(lw, *v) == Some(var) && lw.const_eval(*one, 0) == Some(1)
        }
        _ => false,
    }
}

/// Whether statement `n` holds a jump that would leave an unrolled copy (`break`,
/// `continue`, `return`, `goto`, a label).
fn has_jump(ast: &crate::front::ast::Ast, n: NodeId) -> bool {
    let mut found = false;
    ast.walk(n, &mut |c| {
        found |= matches!(
            ast.kind(c),
            NodeKind::BreakStmt
                | NodeKind::ContinueStmt
                | NodeKind::ReturnStmt
                | NodeKind::GotoStmt
                | NodeKind::LabelStmt
                | NodeKind::IndirectGotoStmt
        );
    });
    found
}
