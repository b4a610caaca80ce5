//! Bytes of a local object read or written as a scalar type none of its members has:
//! `*reinterpret_cast<const unsigned *>(&h2)`, as cuda_fp16 and cuda_bf16 move a `__half2`'s or
//! `__nv_bfloat162`'s bits into and out of inline PTX. The view's value is unknown (autosync
//! does not follow bits across types), and since it may be written, every member it overlaps
//! becomes unknown first: reading those members later gives no value the view could not have
//! left. Only members held in variables (also in nested objects) are viewed this way; a view
//! over a pointer, a compile-time constant, a cooperative-groups handle or memory is refused.

use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::{Binding, LV};
use autosync_oracle::ir::{Expr, Op, Span};

impl Lowerer<'_> {
    /// The view of bytes `at..` of object `o` as scalar `ty`, or why there is none.
    pub(super) fn byte_view(&mut self, o: usize, at: u64, ty: &CType, span: Span) -> FResult<LV> {
        let refused = || {
            FrontError::unsupported(
                span,
                format!("bytes {at}.. of an object read or written as another type"),
            )
            .with_help("access the member by name")
        };
        if !ty.is_scalar_like() || ty.is_pointer() {
            return Err(refused());
        }
        let size = self.size_of(ty, span)?;
        let mut vars = Vec::new();
        if !self.member_vars(o, (at, at + size), &mut vars, span)? {
            return Err(refused());
        }
        for (v, t) in vars {
            self.ops.push(Op::Assign(v, Expr::Unknown(t.scalar())));
        }
        let v = self.temp(ty.scalar());
        self.ops.push(Op::Assign(v, Expr::Unknown(ty.scalar())));
        Ok(LV::Var(v, ty.clone()))
    }

    /// Adds to `out` the variables of the members of `o` that overlap bytes `lo..hi`; false
    /// when the range leaves the object or overlaps a member not held in a variable.
    fn member_vars(
        &self,
        o: usize,
        (lo, hi): (u64, u64),
        out: &mut Vec<(autosync_oracle::ir::VarId, CType)>,
        span: Span,
    ) -> FResult<bool> {
        let rec = self.objs[o].record;
        let layout = self.types.layout(rec).map_err(|m| FrontError::unsupported(span, m))?;
        if hi > layout.size {
            return Ok(false);
        }
        for f in &layout.fields {
            let end = f.offset + self.size_of(&f.ty, span)?;
            if end <= lo || f.offset >= hi {
                continue;
            }
            match self.objs[o].fields.get(&f.id) {
                // A member never given a value holds nothing to keep.
                None => {}
                Some(Binding::Var(v, t)) => out.push((*v, t.clone())),
                Some(Binding::Obj(inner)) => {
                    let inner_range = (lo.saturating_sub(f.offset), hi.min(end) - f.offset);
                    if !self.member_vars(*inner, inner_range, out, span)? {
                        return Ok(false);
                    }
                }
                Some(_) => return Ok(false),
            }
        }
        Ok(true)
    }
}
