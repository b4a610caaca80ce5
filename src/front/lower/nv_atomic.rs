//! nvcc's atomic built-ins (CUDA 12.8 on: `__nv_atomic_load_n`, `__nv_atomic_fetch_add`, ...,
//! with a memory order and a scope), which CUTLASS calls when the toolkit is that new. nvcc
//! declares them itself; Clang does not, so `autosync_nvcc.h` declares them bodiless and they
//! are modelled here by name.
//!
//! Every one is an atomic access of `*ptr` (kind `Atomic`): it races with plain accesses of
//! other threads, not with their atomics. An atomic *load* is one too, so it never races with
//! another thread's atomic read-modify-write (a CAS loop seeded by `__nv_atomic_load_n`), and
//! is reported against a plain read of another thread, which is no race on hardware: a false
//! alarm, never a missed race. Orders and scopes are evaluated and otherwise ignored: a fence
//! or an ordered atomic orders memory, it does not make two threads wait for each other.

use super::convert::convert;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::{Pointer, RV};
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::{Expr, ScalarTy, Span};

/// How a built-in's arguments are laid out: operand by value or through a pointer, result
/// returned or written through a pointer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `T f(T *ptr, [T val,] order, scope)`.
    Value { operand: bool },
    /// `void f(T *ptr, T *val, order, scope)` (`store`).
    StoreFrom,
    /// `void f(T *ptr, T *ret, order, scope)` (`load`).
    LoadInto,
    /// `void f(T *ptr, T *val, T *ret, order, scope)` (`exchange`).
    ExchangeVia,
    /// `bool f(T *ptr, T *expected, T desired | T *desired, bool weak, order, order, scope)`.
    CompareExchange { by_value: bool },
}

/// The form of built-in `op` (the name after `__nv_atomic_`), and the `atomicAdd`-style name
/// whose counter rule applies; `None` for a name nvcc does not have.
fn form(op: &str) -> Option<(Form, &'static str)> {
    Some(match op {
        "fetch_add" | "add" => (Form::Value { operand: true }, "atomicAdd"),
        "fetch_sub" | "sub" => (Form::Value { operand: true }, "atomicSub"),
        "fetch_and" | "and" | "fetch_or" | "or" | "fetch_xor" | "xor" | "fetch_min" | "min" | "fetch_max" | "max"
        | "exchange_n" | "store_n" => (Form::Value { operand: true }, "atomicOther"),
        "load_n" => (Form::Value { operand: false }, "atomicOther"),
        "store" => (Form::StoreFrom, "atomicOther"),
        "load" => (Form::LoadInto, "atomicOther"),
        "exchange" => (Form::ExchangeVia, "atomicOther"),
        "compare_exchange_n" => (Form::CompareExchange { by_value: true }, "atomicOther"),
        "compare_exchange" => (Form::CompareExchange { by_value: false }, "atomicOther"),
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    /// A `__nv_atomic_*` built-in call with result type `rt`.
    pub(crate) fn nv_atomic(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        let op = name.trim_start_matches("__nv_atomic_");
        if op == "thread_fence" {
            for &a in args {
                self.rvalue(a)?;
            }
            return Ok(Value::R(RV::Void));
        }
        let Some((form, family)) = form(op) else {
            return Err(FrontError::unsupported(
                span,
                format!("nvcc's built-in `{name}` is not modelled"),
            ));
        };
        let fixed = match form {
            Form::Value { operand: true } | Form::StoreFrom | Form::LoadInto => 2,
            Form::Value { operand: false } => 1,
            Form::ExchangeVia => 3,
            Form::CompareExchange { .. } => 3,
        };
        if args.len() < fixed {
            return Err(FrontError::input(
                span,
                format!("`{name}` with {} arguments", args.len()),
            ));
        }
        let p = self.pointer(args[0])?;
        let access_span = self.span(args[0]);
        let ty = p.pointee.clone();
        // The operand: by value, or read through its pointer.
        let operand = match form {
            Form::Value { operand: true } => Some(self.scalar(args[1])?),
            Form::StoreFrom | Form::ExchangeVia => Some(self.load_through(args[1], &ty)?),
            Form::CompareExchange { by_value: true } => Some(self.scalar(args[2])?),
            Form::CompareExchange { by_value: false } => Some(self.load_through(args[2], &ty)?),
            Form::Value { operand: false } | Form::LoadInto => None,
        };
        if let Form::CompareExchange { .. } = form {
            self.load_through(args[1], &ty)?;
        }
        // Orders, scopes and `weak`: evaluated for their effects.
        for &a in &args[fixed..] {
            self.rvalue(a)?;
        }
        let (old, ty) = self.atomic_rmw(family, p, operand.as_slice(), access_span, span)?;
        match form {
            Form::LoadInto => self.store_through(args[1], old.clone(), &ty)?,
            Form::ExchangeVia => self.store_through(args[2], old.clone(), &ty)?,
            // `*expected` gets the old value when the exchange fails.
            Form::CompareExchange { .. } => self.store_through(args[1], Expr::Unknown(ty.scalar()), &ty)?,
            Form::Value { .. } | Form::StoreFrom => {}
        }
        Ok(Value::R(match (form, rt) {
            (_, CType::Void) => RV::Void,
            (Form::CompareExchange { .. }, t) => RV::Scalar(Expr::Unknown(ScalarTy::Bool), t.clone()),
            (_, t) => RV::Scalar(convert(old, &ty, t), t.clone()),
        }))
    }

    /// The value `*arg` holds, read as `ty`.
    fn load_through(&mut self, arg: NodeId, ty: &CType) -> FResult<(Expr, CType)> {
        let p: Pointer = self.pointer(arg)?;
        let span = self.span(arg);
        let lv = self.deref(p, ty.clone(), span)?;
        match self.load(lv, span)? {
            RV::Scalar(e, t) => Ok((e, t)),
            _ => Err(FrontError::unsupported(
                span,
                "an atomic built-in's operand that is not a scalar",
            )),
        }
    }

    /// Stores `value` (of type `ty`) into `*arg`.
    fn store_through(&mut self, arg: NodeId, value: Expr, ty: &CType) -> FResult<()> {
        let p: Pointer = self.pointer(arg)?;
        let span = self.span(arg);
        let lv = self.deref(p, ty.clone(), span)?;
        self.store(lv, RV::Scalar(value, ty.clone()), span)
    }
}
