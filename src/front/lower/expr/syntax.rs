//! What an expression node is, read from the AST: its operands without parentheses and
//! implicit conversions, string literals, conditionals used as glvalues, and whether evaluating
//! it may touch memory or have effects.

use super::value::*;
use crate::front::ast::{BinaryOp, NodeId, NodeKind, UnaryOp};
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;

impl<'a> Lowerer<'a> {
    /// The conditional operator `n` is (through parentheses), if it is one.
    pub(super) fn lvalue_conditional(&self, n: NodeId) -> Option<NodeId> {
        let mut inner = n;
        loop {
            match self.ast.kind(inner) {
                NodeKind::ParenExpr => inner = *self.expr_children(inner).first()?,
                NodeKind::ConditionalOperator => return Some(inner),
                _ => return None,
            }
        }
    }

    /// Whether an expression is a string literal (`"..."`, `__func__`, `__extension__
    /// __PRETTY_FUNCTION__` as assert() writes it, in parentheses).
    pub(super) fn is_string_literal(&self, n: NodeId) -> bool {
        let ast = self.ast;
        match ast.kind(n) {
            NodeKind::StringLiteral | NodeKind::PredefinedExpr => true,
            NodeKind::ParenExpr => ast.children(n).next().is_some_and(|c| self.is_string_literal(c)),
            NodeKind::UnaryOperator => {
                ast.unary_op(n) == Some(UnaryOp::Extension)
                    && ast.children(n).next().is_some_and(|c| self.is_string_literal(c))
            }
            _ => false,
        }
    }

    /// Whether evaluating a subtree may touch memory or have effects (then it cannot be part
    /// of an expression evaluated unconditionally).
    pub(crate) fn has_effects(&self, n: NodeId) -> bool {
        let ast = self.ast;
        let mut found = false;
        ast.walk(n, &mut |c| {
            if found {
                return;
            }
            found = match ast.kind(c) {
                NodeKind::CallExpr
                | NodeKind::CXXMemberCallExpr
                | NodeKind::CXXOperatorCallExpr
                | NodeKind::ArraySubscriptExpr
                | NodeKind::CompoundAssignOperator
                | NodeKind::CXXConstructExpr
                | NodeKind::CXXTemporaryObjectExpr
                | NodeKind::LambdaExpr
                | NodeKind::StmtExpr => true,
                NodeKind::UnaryOperator => {
                    matches!(ast.unary_op(c), Some(UnaryOp::Deref | UnaryOp::Inc | UnaryOp::Dec))
                }
                NodeKind::BinaryOperator => ast.binary_op(c) == Some(BinaryOp::Assign),
                NodeKind::MemberExpr => ast.node(c).attrs.is_arrow,
                NodeKind::DeclRefExpr => match ast.node(c).attrs.referenced {
                    Some(r) => match self.env.get(&r.id) {
                        Some(Binding::Mem(_)) => true,
                        Some(_) => false,
                        None => matches!(r.kind, NodeKind::VarDecl) && builtin_var(ast.str(r.name)).is_none(),
                    },
                    None => false,
                },
                _ => false,
            };
        });
        found
    }

    /// Lowers the one expression child of a wrapper node.
    pub(super) fn eval_only_child(&mut self, n: NodeId) -> FResult<Value> {
        let span = self.span(n);
        let c = self
            .ast
            .children(n)
            .find(|&c| !self.ast.is_decl(c) && self.ast.kind(c) != NodeKind::TemplateArgument)
            .ok_or_else(|| FrontError::input(span, format!("empty {}", self.ast.kind_str(n))))?;
        self.eval(c)
    }

    /// A node without the parentheses and implicit conversions around it.
    pub(crate) fn strip(&self, mut n: NodeId) -> NodeId {
        while matches!(self.ast.kind(n), NodeKind::ParenExpr | NodeKind::ImplicitCastExpr) {
            match self.expr_children(n).first() {
                Some(&c) => n = c,
                None => break,
            }
        }
        n
    }

    /// The expression children of a node (skipping declarations and type nodes).
    pub(crate) fn expr_children(&self, n: NodeId) -> Vec<NodeId> {
        self.ast
            .children(n)
            .filter(|&c| {
                !(self.ast.is_decl(c) || self.ast.is_type(c) || self.ast.kind(c) == NodeKind::TemplateArgument)
            })
            .collect()
    }
}
