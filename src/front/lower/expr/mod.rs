//! Expressions: glvalues to places/variables/objects, prvalues to pure IR expressions, with
//! the memory operations they perform appended to the current statement.

mod addresses;
mod casts;
mod consts;
mod init;
mod names;
mod operators;
mod place;
mod syntax;
mod tables;
mod traits;
mod value;
mod views;

pub(crate) use value::{builtin_var, rv_what, Value};

use super::convert::*;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::{NodeId, NodeKind, UnaryOp};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// Lowers an expression used as a value.
    pub(crate) fn rvalue(&mut self, n: NodeId) -> FResult<RV> {
        // `c ? x : y` of two lvalues is an lvalue in C++; only its value is used here.
        let value = match self.lvalue_conditional(n) {
            Some(c) => self.conditional_as(c, true)?,
            None => self.eval(n)?,
        };
        match value {
            Value::R(rv) => Ok(rv),
            Value::L(lv) => {
                let span = self.span(n);
                self.load(lv, span)
            }
        }
    }

    /// Lowers an expression that denotes an object or location.
    pub(crate) fn lvalue(&mut self, n: NodeId) -> FResult<LV> {
        match self.eval(n)? {
            Value::L(lv) => Ok(lv),
            Value::R(RV::Obj(o)) => Ok(LV::Obj(o)),
            Value::R(RV::Group(g)) => Ok(LV::Group(g)),
            // A temporary bound to a const reference.
            Value::R(RV::Scalar(e, t)) => {
                let v = self.temp(t.scalar());
                self.ops.push(Op::Assign(v, e));
                Ok(LV::Var(v, t))
            }
            Value::R(RV::Ptr(p)) => {
                let v = self.temp(ScalarTy::U64);
                self.ops.push(Op::Assign(v, p.off));
                Ok(LV::Ptr(self.new_slot("$tmp", p.region, SlotOff::Var(v), p.pointee)))
            }
            Value::R(RV::Void) => Err(FrontError::input(
                self.span(n),
                "a void expression is used as an object",
            )),
        }
    }

    /// Lowers an expression for its effects only.
    pub(crate) fn discard(&mut self, n: NodeId) -> FResult<()> {
        let mut d = n;
        while self.ast.kind(d) == NodeKind::ParenExpr {
            match self.ast.children(d).next() {
                Some(c) => d = c,
                None => break,
            }
        }
        // A bare `s[i];` still reads (as a volatile access would); an assignment's result is
        // not read.
        let designator = match self.ast.kind(d) {
            NodeKind::DeclRefExpr | NodeKind::ArraySubscriptExpr | NodeKind::MemberExpr => true,
            NodeKind::UnaryOperator => self.ast.unary_op(d) == Some(UnaryOp::Deref),
            _ => false,
        };
        if let Value::L(LV::Mem(p)) = self.eval(n)? {
            if designator && !matches!(p.ty, CType::Array(..) | CType::Record(_)) {
                self.read(&p)?;
            }
        }
        Ok(())
    }

    /// Lowers a scalar expression: its pure value and type (pointers give their offset).
    pub(crate) fn scalar(&mut self, n: NodeId) -> FResult<(Expr, CType)> {
        let span = self.span(n);
        match self.rvalue(n)? {
            RV::Scalar(e, t) => Ok((e, t)),
            RV::Ptr(p) => match self.address_number(&p) {
                Some(e) => Ok((e, CType::U64)),
                // A thread's own or an unknown place: its address is no number known alike.
                None => Ok((Expr::Unknown(ScalarTy::U64), CType::U64)),
            },
            RV::Obj(_) | RV::Group(_) => {
                // An object used as a number (compared, printed): unknown.
                Ok((Expr::Unknown(ScalarTy::U64), CType::U64))
            }
            RV::Void => Err(FrontError::input(span, "a void expression is used as a value")),
        }
    }

    /// Lowers a condition to a boolean predicate.
    pub(crate) fn cond(&mut self, n: NodeId) -> FResult<Expr> {
        let (e, t) = self.scalar(n)?;
        Ok(to_bool(e, &t))
    }

    /// Lowers a pointer-valued expression.
    pub(crate) fn pointer(&mut self, n: NodeId) -> FResult<Pointer> {
        let span = self.span(n);
        match self.rvalue(n)? {
            RV::Ptr(p) => Ok(p),
            RV::Scalar(Expr::Const(0, _), _) => Ok(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Void,
            }),
            // A number computed from an array's address (a swizzled shared address for PTX).
            RV::Scalar(e, t) if self.provenance(&e).is_some() => {
                let byte = CType::Int { bits: 8, signed: false };
                Ok(self
                    .pointer_from_number(&e, &t, byte, span)
                    .expect("checked by the guard"))
            }
            _ => Err(FrontError::unsupported(span, "expected a pointer")),
        }
    }

    /// Lowers an expression node.
    pub(crate) fn eval(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let kind = ast.kind(n);
        let span = self.span(n);
        match kind {
            NodeKind::IntegerLiteral | NodeKind::CharacterLiteral | NodeKind::CXXBoolLiteralExpr => {
                let t = self.type_of(n);
                let v = ast.value(n).and_then(super::types::parse_int).unwrap_or(0);
                Ok(Value::R(RV::Scalar(Expr::Const(fold_cast(v, &t), t.scalar()), t)))
            }
            NodeKind::FloatingLiteral | NodeKind::ImaginaryLiteral | NodeKind::FixedPointLiteral => {
                let t = self.type_of(n);
                Ok(Value::R(RV::Scalar(Expr::Opaque(ScalarTy::Opaque, vec![]), t)))
            }
            NodeKind::StringLiteral | NodeKind::PredefinedExpr => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Unknown("a string literal".into()),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Int { bits: 8, signed: true },
            }))),
            NodeKind::CXXNullPtrLiteralExpr | NodeKind::GNUNullExpr => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Void,
            }))),
            NodeKind::ConstantExpr => {
                let t = self.type_of(n);
                if let (Some(v), true) = (ast.value(n).and_then(super::types::parse_int), t.is_integral()) {
                    return Ok(Value::R(RV::Scalar(Expr::Const(fold_cast(v, &t), t.scalar()), t)));
                }
                self.eval_only_child(n)
            }
            NodeKind::ParenExpr | NodeKind::ExprWithCleanups | NodeKind::MaterializeTemporaryExpr => {
                self.eval_only_child(n)
            }
            NodeKind::CXXBindTemporaryExpr => {
                if let Some(d) = ast.node(n).attrs.dtor {
                    self.check_trivial_dtor(d.id, span)?;
                }
                self.eval_only_child(n)
            }
            NodeKind::SubstNonTypeTemplateParmExpr => {
                let c = ast
                    .children(n)
                    .filter(|&c| !ast.is_decl(c))
                    .last()
                    .ok_or_else(|| FrontError::input(span, "template parameter without a value"))?;
                self.eval(c)
            }
            NodeKind::OpaqueValueExpr => self.eval_only_child(n),
            NodeKind::DeclRefExpr => self.decl_ref(n),
            NodeKind::MemberExpr => self.member(n),
            NodeKind::PseudoObjectExpr => self.pseudo_object(n),
            NodeKind::ArraySubscriptExpr => self.subscript(n),
            NodeKind::UnaryOperator => self.unary(n),
            NodeKind::BinaryOperator => self.binary(n),
            NodeKind::CompoundAssignOperator => self.compound_assign(n),
            NodeKind::ConditionalOperator => self.conditional(n),
            NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXFunctionalCastExpr
            | NodeKind::CXXReinterpretCastExpr
            | NodeKind::CXXConstCastExpr
            | NodeKind::BuiltinBitCastExpr => self.cast(n),
            NodeKind::UnaryExprOrTypeTraitExpr => self.size_or_align_of(n, span),
            NodeKind::CallExpr
            | NodeKind::CXXMemberCallExpr
            | NodeKind::CXXOperatorCallExpr
            | NodeKind::CUDAKernelCallExpr
            | NodeKind::UserDefinedLiteral => self.call(n),
            NodeKind::CXXConstructExpr | NodeKind::CXXTemporaryObjectExpr => {
                let o = self.construct_temp(n)?;
                Ok(Value::R(o))
            }
            NodeKind::InitListExpr => self.init_list(n, span),
            NodeKind::ImplicitValueInitExpr | NodeKind::CXXScalarValueInitExpr => self.value_init(n, span),
            NodeKind::CXXThisExpr => self.this_expr(span),
            NodeKind::LambdaExpr => self.lambda(n),
            NodeKind::CXXDefaultArgExpr | NodeKind::CXXDefaultInitExpr => Err(FrontError::unsupported(
                span,
                "a default argument or member initializer outside a call autosync inlines",
            )),
            NodeKind::GCCAsmStmt => Err(FrontError::unsupported(span, "asm used as an expression")),
            NodeKind::CXXNewExpr | NodeKind::CXXDeleteExpr => {
                Err(FrontError::unsupported(span, "new/delete in device code")
                    .with_help("allocate shared memory statically or take a pointer parameter"))
            }
            NodeKind::StmtExpr => Err(
                FrontError::unsupported(span, "GNU statement expressions are not supported")
                    .with_help("write the statements out, or use an inline __device__ function"),
            ),
            NodeKind::RecoveryExpr => Err(FrontError::input(span, "Clang could not make sense of this expression")),
            _ => Err(FrontError::unsupported(
                span,
                format!(
                    "expression `{}` ({}) is not supported",
                    first_line(&self.src.spelled_text(n).unwrap_or_default()),
                    ast.kind_str(n)
                ),
            )),
        }
    }
}
