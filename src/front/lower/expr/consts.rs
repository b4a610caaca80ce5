//! Constants: enumerators, `sizeof`/`alignof`, locals never written after their
//! initializer, and integer expressions folded with C's fixed-width semantics.

use super::value::*;
use crate::front::ast::{CastKind, NodeId, NodeKind, UnaryOp};
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::types::EnumInit;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// `sizeof`/`alignof` of a type or an expression: a constant.
    pub(super) fn size_or_align_of(&mut self, n: NodeId, span: Span) -> FResult<Value> {
        let ast = self.ast;
        let what = ast.name(n).to_string();
        let t = match ast.node(n).attrs.arg_type {
            Some(t) => self.types.resolve(ast.type_str(t), &self.scope()),
            None => match ast.children(n).next() {
                Some(c) => self.type_of(c),
                None => return Err(FrontError::unsupported(span, format!("`{what}` without an operand"))),
            },
        };
        let v = match what.as_str() {
            "sizeof" => self.size_of(&t, span)?,
            "alignof" | "__alignof" | "_Alignof" => {
                self.types.align_of(&t).map_err(|m| FrontError::unsupported(span, m))?
            }
            _ => return Err(FrontError::unsupported(span, format!("`{what}` is not supported"))),
        };
        let rt = self.type_of(n);
        Ok(Value::R(RV::Scalar(Expr::Const(v as i64, rt.scalar()), rt)))
    }

    /// The value of an enumerator declaration: Clang's folded value, else its initializer
    /// evaluated here (enum members of class template specializations are left unfolded).
    /// An enumerator only the precompiled prelude declares (`cudaRoundNearest`) has the value
    /// the prelude's table recorded.
    pub(super) fn enumerator(&self, id: u64) -> Option<i64> {
        let d = self.ast.decls.get(&id)?;
        let name = self.ast.str(d.name);
        let Some(parent) = d.parent else {
            let key = crate::front::clang::prelude_types::enumerator_key(name);
            let dumped = self.ast.decl_node(id);
            return match dumped {
                Some(n) => self.enumerator_at(n, 0),
                None => self.ast.prelude_types.get(&key)?.parse().ok(),
            };
        };
        let known = self
            .types
            .enum_values(parent)
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|x| x.1);
        known.or_else(|| self.enumerator_at(self.ast.decl_node(id)?, 0))
    }

    /// The value of the enumerator a node names, if Clang or the initializer fixes it.
    pub(super) fn enumerator_at(&self, n: NodeId, depth: u32) -> Option<i64> {
        match self.types.enumerator_init(n)? {
            _ if depth > 64 => None,
            EnumInit::Expr(e) => self.const_eval(e, depth + 1),
            EnumInit::First => Some(0),
            EnumInit::After(prev) => self.enumerator_at(prev, depth + 1).map(|v| v.wrapping_add(1)),
        }
    }

    /// The value of a local variable initialized with a constant and never modified (every
    /// use of it a read: no assignment, increment, `&` or reference binding), such as
    /// `size_t len = 4;` passed to `memcpy`; `None` otherwise.
    pub(crate) fn unmodified_local(&self, n: NodeId) -> Option<i64> {
        let ast = self.ast;
        let mut e = n;
        while matches!(ast.kind(e), NodeKind::ParenExpr | NodeKind::ImplicitCastExpr) {
            e = *self.expr_children(e).first()?;
        }
        let r = ast.node(e).attrs.referenced.filter(|r| r.kind == NodeKind::VarDecl)?;
        if !matches!(self.env.get(&r.id), Some(Binding::Var(..))) {
            return None;
        }
        let only_read = ast.nodes.iter().all(|u| {
            u.kind != NodeKind::DeclRefExpr
                || u.attrs.referenced.is_none_or(|x| x.id != r.id)
                || u.parent.is_some_and(|p| {
                    let p = ast.node(p);
                    p.kind == NodeKind::ImplicitCastExpr && p.attrs.cast_kind == Some(CastKind::LValueToRValue)
                })
        });
        let d = ast.decl_node(r.id)?;
        let init = ast.var_init(d)?;
        let t = self.type_of(d);
        (only_read && t.is_integral())
            .then(|| self.const_eval(init, 0))
            .flatten()
            .map(|v| fold_cast(v, &t))
    }

    /// Evaluates an integral constant expression (array sizes, constants, case labels).
    pub(crate) fn const_eval(&self, n: NodeId, depth: u32) -> Option<i64> {
        if depth > 64 {
            return None;
        }
        let ast = self.ast;
        if let Some(v) = self.types.const_value(n) {
            return Some(v);
        }
        let kids: Vec<NodeId> = self.expr_children(n);
        let child = |i: usize| kids.get(i).copied();
        match ast.kind(n) {
            NodeKind::ParenExpr | NodeKind::SubstNonTypeTemplateParmExpr | NodeKind::ExprWithCleanups => {
                self.const_eval(*kids.last()?, depth + 1)
            }
            // A scalar's braced initializer: `constexpr int WARP_THREADS{32};`
            NodeKind::InitListExpr if kids.len() == 1 => self.const_eval(kids[0], depth + 1),
            NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXFunctionalCastExpr => {
                let v = self.const_eval(child(0)?, depth + 1)?;
                let t = self.type_of(n);
                t.is_integral().then(|| fold_cast(v, &t))
            }
            NodeKind::DeclRefExpr => {
                let r = ast.node(n).attrs.referenced?;
                match self.env.get(&r.id) {
                    Some(Binding::Const(v, _)) => return Some(*v),
                    Some(_) => return None,
                    None => {}
                }
                match r.kind {
                    NodeKind::EnumConstantDecl => self.enumerator(r.id),
                    // A variable template's specialization (`TILE_COL_DIM<T>`): Clang shows
                    // its instantiated initializer.
                    NodeKind::VarDecl | NodeKind::VarTemplateSpecializationDecl => {
                        if let Some(same) = self.is_same_v(n) {
                            return Some(same.into());
                        }
                        let d = ast.decl_node(r.id)?;
                        let init = ast.var_init(d)?;
                        self.const_eval(init, depth + 1)
                    }
                    _ => None,
                }
            }
            NodeKind::UnaryOperator => {
                let v = self.const_eval(child(0)?, depth + 1)?;
                let ty = self.type_of(n).scalar();
                match ast.unary_op(n)? {
                    UnaryOp::Minus => UnOp::Neg.fold(ty, ty.normalize(v)),
                    UnaryOp::Not => UnOp::BitNot.fold(ty, ty.normalize(v)),
                    UnaryOp::LNot => Some((v == 0) as i64),
                    UnaryOp::Plus => Some(v),
                    _ => None,
                }
            }
            NodeKind::BinaryOperator => {
                let a = self.const_eval(child(0)?, depth + 1)?;
                let b = self.const_eval(child(1)?, depth + 1)?;
                // Clang made the usual arithmetic conversions explicit: the left operand has
                // the type the operation is done in (for a shift, the promoted left type).
                let operand = self.type_of(child(0)?).scalar();
                let v = super::operators::ir_op(ast.binary_op(n)?)?.fold(operand, a, b)?;
                Some(fold_cast(v, &self.type_of(n)))
            }
            NodeKind::ConditionalOperator => {
                let c = self.const_eval(child(0)?, depth + 1)?;
                self.const_eval(if c != 0 { child(1)? } else { child(2)? }, depth + 1)
            }
            NodeKind::UnaryExprOrTypeTraitExpr if ast.name(n) == "sizeof" => {
                let t = match ast.node(n).attrs.arg_type {
                    Some(t) => self.types.resolve(ast.type_str(t), &self.scope()),
                    None => self.type_of(child(0)?),
                };
                self.types.size_of(&t).ok().map(|v| v as i64)
            }
            _ => None,
        }
    }
}
