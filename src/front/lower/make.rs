//! The vector constructors of `vector_functions.h` (`make_int2(x, y)`, `make_float4(...)`):
//! an object of the vector type whose fields are the arguments in order, exactly, so that a
//! vector built from thread indices indexes memory as precisely as the indices themselves.

use super::call::Callee;
use super::expr::Value;
use super::lowerer::Lowerer;
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::FResult;
use autosync_oracle::ir::Span;

impl<'a> Lowerer<'a> {
    /// Lowers `make_<type><n>(...)` of the CUDA library; `None` for other calls.
    pub(crate) fn vector_make(&mut self, c: &Callee, n: NodeId, span: Span) -> Option<FResult<Value>> {
        let qual = self.ast.qual_name(c.decl)?;
        let ty = qual.strip_prefix("make_")?;
        if super::vector_types::record_id(ty).is_none() || c.this.is_some() {
            return None;
        }
        let CType::Record(rec) = self.type_of(n) else {
            return None;
        };
        let fields = self.types.layout(rec).ok()?.fields.len();
        if fields != c.args.len() {
            return None;
        }
        let name = format!("{qual}()");
        Some(self.new_obj(rec, &name, span).and_then(|o| {
            self.library_construct(o, rec, &c.args, span)?;
            Ok(Value::R(RV::Obj(o)))
        }))
    }
}
