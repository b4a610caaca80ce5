//! Casts, by Clang's cast kind: loads, conversions between scalars, array and function decay,
//! pointer reinterpretation and base/derived adjustments; a kind not handled is refused, named.

use super::value::*;
use crate::front::ast::{CastKind, NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A cast expression, by its cast kind.
    pub(super) fn cast(&mut self, n: NodeId) -> FResult<Value> {
        let ast = self.ast;
        let span = self.span(n);
        let ck = ast.cast_kind(n).unwrap_or(CastKind::NoOp);
        let c = *self
            .expr_children(n)
            .first()
            .ok_or_else(|| FrontError::input(span, "cast without operand"))?;
        let to = self.type_of(n);
        match ck {
            CastKind::LValueToRValue => {
                if self.lvalue_conditional(c).is_some() {
                    return self.rvalue(c).map(Value::R);
                }
                let lv = self.lvalue(c)?;
                self.load(lv, span).map(Value::R)
            }
            CastKind::NoOp
            | CastKind::AtomicToNonAtomic
            | CastKind::NonAtomicToAtomic
            | CastKind::AddressSpaceConversion => match self.eval(c)? {
                Value::R(RV::Scalar(e, t)) if to.is_integral() && t != to => {
                    Ok(Value::R(RV::Scalar(convert(e, &t, &to), to)))
                }
                v => Ok(v),
            },
            CastKind::ToVoid => {
                self.discard(c)?;
                Ok(Value::R(RV::Void))
            }
            CastKind::ArrayToPointerDecay => self.array_decay(c, span),
            CastKind::FunctionToPointerDecay => Ok(Value::R(RV::Ptr(self.code_pointer(c)?))),
            CastKind::NullToPointer => Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Null,
                off: Expr::Const(0, ScalarTy::U64),
                pointee: to.pointee().cloned().unwrap_or(CType::Void),
            }))),
            CastKind::BitCast
            | CastKind::CPointerToObjCPointerCast
            | CastKind::ReinterpretMemberPointer
            | CastKind::LValueBitCast
            | CastKind::DerivedToBase
            | CastKind::UncheckedDerivedToBase
            | CastKind::BaseToDerived => self.pointer_cast(n, ck, c, &to, span),
            CastKind::IntegralCast if self.derived_address(c) => self.eval(c),
            CastKind::IntegralCast
            | CastKind::IntegralToBoolean
            | CastKind::BooleanToSignedIntegral
            | CastKind::IntegralToFloating
            | CastKind::FloatingToIntegral
            | CastKind::FloatingCast
            | CastKind::FloatingToBoolean
            | CastKind::FloatingRealToComplex
            | CastKind::IntegralRealToComplex => {
                let (e, t) = self.scalar(c)?;
                let e = if ck == CastKind::BooleanToSignedIntegral {
                    Expr::Select(
                        Box::new(to_bool(e, &t)),
                        Box::new(Expr::Const(-1, to.scalar())),
                        Box::new(Expr::Const(0, to.scalar())),
                    )
                } else {
                    convert(e, &t, &to)
                };
                Ok(Value::R(RV::Scalar(e, to)))
            }
            CastKind::PointerToBoolean => match self.rvalue(c)? {
                RV::Ptr(p) => Ok(Value::R(RV::Scalar(
                    match p.region {
                        Region::Null => Expr::bool(false),
                        Region::Array(_) | Region::Obj(_) | Region::Slot(_) | Region::Choice(..) => Expr::bool(true),
                        Region::Unknown(_) => Expr::Unknown(ScalarTy::Bool),
                        // A function's number is never 0; 0 is null.
                        Region::Code => Expr::Bin(
                            BinOp::Ne,
                            ScalarTy::U64,
                            Box::new(p.off),
                            Box::new(Expr::Const(0, ScalarTy::U64)),
                        ),
                    },
                    CType::Bool,
                ))),
                _ => Ok(Value::R(RV::Scalar(Expr::Unknown(ScalarTy::Bool), CType::Bool))),
            },
            CastKind::PointerToIntegral => match self.rvalue(c)? {
                // An address as a number: kept as the pointer, for inline asm and `__cvta_*`.
                RV::Ptr(p) => Ok(Value::R(RV::Ptr(p))),
                _ => Ok(Value::R(RV::Scalar(Expr::Unknown(to.scalar()), to))),
            },
            CastKind::IntegralToPointer => {
                let pointee = to.pointee().cloned().unwrap_or(CType::Void);
                let p = match self.rvalue(c)? {
                    // An integer variable that holds an address.
                    RV::Ptr(p) => Some(Pointer {
                        pointee: pointee.clone(),
                        ..p
                    }),
                    RV::Scalar(e, t) => self.pointer_from_number(&e, &t, pointee.clone(), span),
                    _ => None,
                };
                Ok(Value::R(RV::Ptr(p.unwrap_or(Pointer {
                    region: Region::Unknown("a pointer made from an integer".into()),
                    off: Expr::Const(0, ScalarTy::U64),
                    pointee,
                }))))
            }
            CastKind::UserDefinedConversion | CastKind::ConstructorConversion => self.eval(c),
            CastKind::Dependent => Err(FrontError::missing(
                span,
                "a dependent expression in uninstantiated template code",
                "instantiate the template",
            )),
            other => Err(FrontError::unsupported(
                span,
                format!("cast `{}` is not supported", ast.cast_name(other)),
            )),
        }
    }

    /// An array decaying to a pointer to its first element.
    pub(super) fn array_decay(&mut self, c: NodeId, span: Span) -> FResult<Value> {
        // A string literal (an assertion's message): a pointer nothing may read through.
        if self.is_string_literal(c) {
            return Ok(Value::R(RV::Ptr(Pointer {
                region: Region::Unknown("a string literal".into()),
                off: Expr::Const(0, ScalarTy::U64),
                pointee: CType::Int { bits: 8, signed: true },
            })));
        }
        match self.lvalue(c)? {
            LV::Mem(p) => {
                let elem = match &p.ty {
                    CType::Array(e, _) => (**e).clone(),
                    t => t.clone(),
                };
                Ok(Value::R(RV::Ptr(Pointer {
                    region: p.region(),
                    off: p.off,
                    pointee: elem,
                })))
            }
            other => Err(FrontError::unsupported(
                span,
                format!("array decay of {}", lv_what(&other)),
            )),
        }
    }

    /// Casts that keep the address and change the type: bit casts, reinterpreted references, base/derived conversions.
    pub(super) fn pointer_cast(
        &mut self,
        n: NodeId,
        ck: CastKind,
        c: NodeId,
        to: &CType,
        span: Span,
    ) -> FResult<Value> {
        let ast = self.ast;
        match ck {
            CastKind::BitCast | CastKind::CPointerToObjCPointerCast | CastKind::ReinterpretMemberPointer => {
                match self.rvalue(c)? {
                    RV::Ptr(p) => Ok(Value::R(RV::Ptr(Pointer {
                        pointee: to.pointee().cloned().unwrap_or(p.pointee),
                        ..p
                    }))),
                    other => Ok(Value::R(other)),
                }
            }
            // `reinterpret_cast<T&>(obj)`: the same bytes read as another type (CUB's
            // `Uninitialized<T>::Alias()` over temporary storage, a union member by reference).
            CastKind::LValueBitCast => match self.lvalue(c)? {
                LV::Mem(p) => Ok(Value::L(LV::Mem(Place {
                    ty: to.unref().clone(),
                    ..p
                }))),
                LV::Obj(o) if matches!(to.unref(), CType::Record(r) if self.types.definition(*r) == self.objs[o].record) => {
                    Ok(Value::L(LV::Obj(o)))
                }
                other => Err(FrontError::unsupported(
                    span,
                    format!(
                        "reinterpreting {} as `{}`",
                        lv_what(&other),
                        ast.ty(n).unwrap_or("another type")
                    ),
                )
                .with_help("autosync follows reinterpreted memory in shared or global arrays, not in local objects")),
            },
            CastKind::DerivedToBase | CastKind::UncheckedDerivedToBase | CastKind::BaseToDerived => {
                let from = self.type_of(c);
                match self.eval(c)? {
                    Value::R(RV::Ptr(p)) => {
                        let delta = self.base_offset(from.pointee(), to.pointee(), ck, span)?;
                        Ok(Value::R(RV::Ptr(Pointer {
                            off: add_offset(p.off, Expr::Const(delta, ScalarTy::I64), 1),
                            pointee: to.pointee().cloned().unwrap_or(p.pointee),
                            region: p.region,
                        })))
                    }
                    Value::L(LV::Mem(p)) => {
                        let delta = self.base_offset(Some(&from), Some(to), ck, span)?;
                        Ok(Value::L(LV::Mem(Place {
                            off: add_offset(p.off, Expr::Const(delta, ScalarTy::I64), 1),
                            ty: to.clone(),
                            ..p
                        })))
                    }
                    // Local objects hold their bases' fields: the same object.
                    v => Ok(v),
                }
            }
            other => unreachable!("not a pointer cast: {other:?}"),
        }
    }

    /// Whether an integer expression holds an address (a `__cvta_*` result, a pointer cast to
    /// an integer, or a variable holding one): integer casts keep it a pointer.
    pub(crate) fn derived_address(&self, n: NodeId) -> bool {
        let ast = self.ast;
        match ast.kind(n) {
            NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXFunctionalCastExpr
            | NodeKind::ParenExpr => {
                ast.cast_kind(n) == Some(CastKind::PointerToIntegral)
                    || self.expr_children(n).first().is_some_and(|&c| self.derived_address(c))
            }
            NodeKind::CallExpr => self.expr_children(n).first().is_some_and(|&callee| {
                let mut found = false;
                ast.walk(callee, &mut |x| {
                    if let Some(r) = ast.node(x).attrs.referenced {
                        found |= ast.str(r.name).starts_with("__cvta_generic_to_");
                    }
                });
                found
            }),
            NodeKind::DeclRefExpr => {
                ast.node(n).attrs.referenced.is_some_and(|r| {
                    self.type_of(n).is_integral() && matches!(self.env.get(&r.id), Some(Binding::Ptr(_)))
                })
            }
            _ => false,
        }
    }

    /// Byte offset of a base class inside a derived one (for pointer casts along the
    /// hierarchy; negative for base-to-derived).
    pub(super) fn base_offset(
        &self,
        from: Option<&CType>,
        to: Option<&CType>,
        kind: CastKind,
        span: Span,
    ) -> FResult<i64> {
        let (Some(CType::Record(f)), Some(CType::Record(t))) = (from, to) else {
            return Ok(0);
        };
        let (derived, base, sign) = if kind == CastKind::BaseToDerived {
            (*t, *f, -1)
        } else {
            (*f, *t, 1)
        };
        let base = self.types.definition(base);
        let mut stack = vec![(self.types.definition(derived), 0u64)];
        while let Some((r, off)) = stack.pop() {
            if r == base {
                return Ok(sign * off as i64);
            }
            let l = self.types.layout(r).map_err(|m| FrontError::unsupported(span, m))?;
            for (b, o) in &l.bases {
                stack.push((self.types.definition(*b), off + o));
            }
        }
        Ok(0)
    }
}
