//! What an expression lowers to ([`Value`]: a glvalue or a prvalue), the builtin variables'
//! components, and the words messages use for values.

use crate::front::error::{FResult, FrontError};
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

/// A lowered expression: a glvalue or a prvalue.
pub(crate) enum Value {
    L(LV),
    R(RV),
}

/// The builtin a CUDA builtin variable's component reads (`blockDim` → `BlockDim`).
pub(crate) fn builtin_var(name: &str) -> Option<fn(Dim) -> Builtin> {
    match name {
        "threadIdx" => Some(Builtin::ThreadIdx),
        "blockIdx" => Some(Builtin::BlockIdx),
        "blockDim" => Some(Builtin::BlockDim),
        "gridDim" => Some(Builtin::GridDim),
        _ => None,
    }
}

/// The dimension a builtin variable's accessor reads (`__fetch_builtin_x` → `x`).
pub(super) fn dim_of(name: &str) -> Option<Dim> {
    match name.strip_prefix("__fetch_builtin_")? {
        "x" => Some(Dim::X),
        "y" => Some(Dim::Y),
        "z" => Some(Dim::Z),
        _ => None,
    }
}

/// How a glvalue is named in messages.
pub(crate) fn lv_what(lv: &LV) -> &'static str {
    match lv {
        LV::Mem(_) => "a memory location",
        LV::Var(..) => "a variable",
        LV::Ptr(_) => "a pointer variable",
        LV::Obj(_) => "an object",
        LV::Const(..) => "a constant",
        LV::Group(_) => "a thread group",
    }
}

/// How a prvalue is named in messages.
pub(crate) fn rv_what(rv: &RV) -> &'static str {
    match rv {
        RV::Scalar(..) => "a number",
        RV::Ptr(_) => "a pointer",
        RV::Obj(_) => "an object",
        RV::Group(_) => "a thread group",
        RV::Void => "nothing",
    }
}

/// Refuses arithmetic on the address of a pointer variable (`&p + 1`): such an address only
/// ever points at the variable itself, which is what lets `deref` take it at offset 0.
pub(super) fn no_slot_arith(region: &Region, idx: &Expr, span: Span) -> FResult<()> {
    match (region, idx) {
        (Region::Slot(_), Expr::Const(0, _)) | (Region::Array(_) | Region::Obj(_) | Region::Choice(..), _) => Ok(()),
        (Region::Slot(_), _) => Err(
            FrontError::unsupported(span, "arithmetic on the address of a pointer variable")
                .with_help("keep pointers in local variables, one per array"),
        ),
        _ => Ok(()),
    }
}
