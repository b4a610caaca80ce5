//! `return` in inlined bodies as flags and values, and the syntactic questions about jumps
//! the other statements ask (does a statement continue out of or return from a loop, is a
//! condition constant).

use crate::front::ast::{Ast, NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A `return`: the value stored for the caller, then the end of the inlined body.
    pub(super) fn return_stmt(&mut self, n: NodeId, span: Span) -> FResult<()> {
        self.stmt_span = span;
        let value = self.expr_children(n).first().copied();
        if self.frames.is_empty() {
            if let Some(v) = value {
                self.discard(v)?;
            }
            self.flush(false);
            self.push_synthetic(StmtKind::Return { trap: None });
            return Ok(());
        }
        if let Some(v) = value {
            self.return_value(v, span)?;
        }
        // Leaving the inlined body: break out of its one-shot loop, through any loops of the
        // callee (each checks the flag after it ends).
        let base = self.frames.last().map(|f| f.jump_base).unwrap_or(0);
        let inside_loops = self.jumps.len() > base + 1;
        if inside_loops {
            // The flag exists: the call found this `return` inside a loop before inlining.
            let flag = self.frames.last().and_then(|f| f.ret_flag).ok_or_else(|| {
                FrontError::input(
                    span,
                    "internal: return inside a loop of an inlined function without a flag",
                )
            })?;
            self.ops.push(Op::Assign(flag, Expr::bool(true)));
        }
        self.flush(false);
        self.push_synthetic(StmtKind::Break);
        Ok(())
    }

    /// Stores a `return`ed value where the inlined call's result goes.
    fn return_value(&mut self, v: NodeId, span: Span) -> FResult<()> {
        let ret = self.frames.last().map(|f| f.ret.clone()).unwrap_or(RetSlot::None);
        match ret {
            RetSlot::None => self.discard(v),
            RetSlot::Var(var, t) => {
                let rv = self.rvalue(v)?;
                if let (RV::Ptr(p), true) = (&rv, t.is_integral()) {
                    // A function returning an address as an integer: its result is the pointer.
                    let ov = self.new_var(&self.vars[var.0 as usize].name.clone(), ScalarTy::U64, VarKind::Temp);
                    let s = self.new_slot(
                        "$ret",
                        Region::Null,
                        SlotOff::Var(ov),
                        CType::Int { bits: 8, signed: false },
                    );
                    self.assign_ptr(s, p.clone(), span)?;
                    if let Some(f) = self.frames.last_mut() {
                        f.ret = RetSlot::Ptr(s);
                    }
                    return Ok(());
                }
                self.store(LV::Var(var, t), rv, span)
            }
            RetSlot::Ptr(s) => {
                let rv = self.rvalue(v)?;
                self.store(LV::Ptr(s), rv, span)
            }
            RetSlot::Obj(o) => {
                if matches!(
                    self.ast.kind(v),
                    NodeKind::CXXConstructExpr | NodeKind::InitListExpr | NodeKind::ExprWithCleanups
                ) {
                    return self.init_object(o, v, span);
                }
                let rv = self.rvalue(v)?;
                self.store(LV::Obj(o), rv, span)
            }
            RetSlot::Group(_) => {
                let g = match self.rvalue(v)? {
                    RV::Group(g) => Some(g),
                    _ => None,
                };
                if let Some(f) = self.frames.last_mut() {
                    f.ret = RetSlot::Group(g);
                }
                Ok(())
            }
            RetSlot::Ref(prev, off_var) => {
                let lv = self.lvalue(v)?;
                let b = match (prev, lv) {
                    (None, LV::Mem(p)) => {
                        let ov = self.temp(ScalarTy::U64);
                        self.ops.push(Op::Assign(ov, p.off.clone()));
                        if let Some(f) = self.frames.last_mut() {
                            f.ret = RetSlot::Ref(
                                Some(Binding::Mem(Place {
                                    off: Expr::Var(ov),
                                    ..p.clone()
                                })),
                                Some(ov),
                            );
                        }
                        return Ok(());
                    }
                    (Some(Binding::Mem(old)), LV::Mem(p)) if old.array == p.array => {
                        if let Some(ov) = off_var {
                            self.ops.push(Op::Assign(ov, p.off));
                        }
                        return Ok(());
                    }
                    (None, lv) => self.lv_binding(lv),
                    (Some(_), _) => {
                        return Err(FrontError::unsupported(
                            span,
                            "a function returning references to different variables",
                        ))
                    }
                };
                if let Some(f) = self.frames.last_mut() {
                    f.ret = RetSlot::Ref(Some(b), None);
                }
                Ok(())
            }
        }
    }
}

/// Whether a `continue` inside `s` (not inside a nested loop) targets a loop outside it.
pub(crate) fn continues_out(ast: &Ast, s: NodeId) -> bool {
    match ast.kind(s) {
        NodeKind::ContinueStmt => true,
        NodeKind::ForStmt | NodeKind::WhileStmt | NodeKind::DoStmt | NodeKind::CXXForRangeStmt => false,
        _ => ast.children(s).any(|c| continues_out(ast, c)),
    }
}

/// Whether a `return` inside `s` lies within a loop or switch of `s`.
pub(crate) fn returns_from_loop(ast: &Ast, s: NodeId, in_loop: bool) -> bool {
    match ast.kind(s) {
        NodeKind::ReturnStmt => in_loop,
        NodeKind::ForStmt
        | NodeKind::WhileStmt
        | NodeKind::DoStmt
        | NodeKind::CXXForRangeStmt
        | NodeKind::SwitchStmt => ast.children(s).any(|c| returns_from_loop(ast, c, true)),
        NodeKind::LambdaExpr => false,
        _ => ast.children(s).any(|c| returns_from_loop(ast, c, in_loop)),
    }
}

/// Whether a statement always leaves (break, continue, return), so the next case is not
/// reached by falling through.
pub(super) fn jumps_away(ast: &Ast, s: NodeId) -> bool {
    match ast.kind(s) {
        NodeKind::BreakStmt | NodeKind::ContinueStmt | NodeKind::ReturnStmt => true,
        NodeKind::CompoundStmt => ast.children(s).last().is_some_and(|l| jumps_away(ast, l)),
        NodeKind::AttributedStmt => ast.children(s).last().is_some_and(|l| jumps_away(ast, l)),
        NodeKind::IfStmt => {
            let a = &ast.node(s).attrs;
            if !a.has_else {
                return false;
            }
            let kids: Vec<NodeId> = ast.children(s).collect();
            kids.len() >= 2 && jumps_away(ast, kids[kids.len() - 1]) && jumps_away(ast, kids[kids.len() - 2])
        }
        _ => false,
    }
}

/// The value of a condition made of constants only (`!1`, `4 >= 4`), if it is one. Comparisons
/// are folded only on non-negative operands, where signed and unsigned agree.
pub(super) fn constant_truth(e: &Expr) -> Option<bool> {
    let value = |e: &Expr| -> Option<i64> {
        match e {
            Expr::Const(v, _) => (*v >= 0).then_some(*v),
            _ => constant_truth(e).map(i64::from),
        }
    };
    match e {
        Expr::Const(v, _) => Some(*v != 0),
        Expr::Un(UnOp::Not, _, a) => constant_truth(a).map(|b| !b),
        Expr::Bin(op, _, a, b) => {
            let (a, b) = (value(a)?, value(b)?);
            match op {
                BinOp::Lt => Some(a < b),
                BinOp::Le => Some(a <= b),
                BinOp::Gt => Some(a > b),
                BinOp::Ge => Some(a >= b),
                BinOp::Eq => Some(a == b),
                BinOp::Ne => Some(a != b),
                BinOp::And => Some(a != 0 && b != 0),
                BinOp::Or => Some(a != 0 || b != 0),
                _ => None,
            }
        }
        _ => None,
    }
}
