//! Pointer tables: a local array of pointers read at a run-time index is a choice of the
//! arrays its entries point into.

use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl Lowerer<'_> {
    /// The region of the pointer at byte offset `off` of pointer table `table`: its element's
    /// array, or for a variable index the choice of all of them.
    pub(super) fn table_entry(&mut self, table: ArrayId, off: &Expr, span: Span) -> FResult<Region> {
        let n = self.pointer_tables[&table].elems.len();
        match off {
            Expr::Const(k, _) if *k >= 0 && k % 8 == 0 && ((*k / 8) as usize) < n => {
                Ok(Region::Array(self.table_array(table, (*k / 8) as usize, span)?))
            }
            Expr::Const(..) => Err(FrontError::unsupported(
                span,
                "an element outside an array of pointers in a kernel parameter",
            )),
            _ => {
                let arrays = (0..n)
                    .map(|i| self.table_array(table, i, span))
                    .collect::<FResult<Vec<_>>>()?;
                let index = Expr::Bin(
                    BinOp::Div,
                    ScalarTy::U64,
                    Box::new(off.clone()),
                    Box::new(Expr::Const(8, ScalarTy::U64)),
                );
                let t = self.temp(ScalarTy::U32);
                self.ops.push(Op::Assign(t, Expr::Cast(ScalarTy::U32, Box::new(index))));
                Ok(Region::Choice(arrays, Expr::Var(t)))
            }
        }
    }

    /// The array element `i` of pointer table `table` points into (made on first use).
    pub(super) fn table_array(&mut self, table: ArrayId, i: usize, span: Span) -> FResult<ArrayId> {
        if let Some(a) = self.pointer_tables[&table].elems[i] {
            return Ok(a);
        }
        let t = &self.pointer_tables[&table];
        let (name, elem) = (format!("{}[{i}]", t.name), t.pointee.clone());
        let elem = match elem {
            CType::Void => CType::Int { bits: 8, signed: false },
            e => e,
        };
        let a = self.new_array(&name, Space::Global, &elem, vec![None], span)?;
        self.pointer_tables.get_mut(&table).expect("table").elems[i] = Some(a);
        Ok(a)
    }
}
