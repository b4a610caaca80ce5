//! Warp-collective matrix loads and stores (`ldmatrix`, `stmatrix`): each lane of the first
//! 8 × num (or 16 × num) supplies the address of one row of one matrix in shared memory, and
//! the warp reads or writes those rows together. Which lane receives which element does not
//! matter for races: the rows are modelled as accessed by the lane that names them, and what a
//! lane receives is a per-thread unknown.

use super::regs::*;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::library::linear_tid;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::ptx::Instr;
use autosync_oracle::ir::*;

/// The rows an `ldmatrix`/`stmatrix` opcode moves.
#[derive(Debug, PartialEq, Eq)]
struct Rows {
    /// How many lanes supply a row address (lanes `0..lanes`).
    lanes: i64,
    /// Bytes in a row.
    bytes: u32,
}

/// The rows of `ldmatrix.sync.aligned.SHAPE.xN[.trans].shared[::cta].TYPE` and the `stmatrix`
/// forms; `None` for shapes and types autosync does not model.
fn rows(opcode: &str) -> Option<Rows> {
    let segs: Vec<&str> = opcode.split('.').collect();
    let num: i64 = segs
        .iter()
        .find_map(|s| s.strip_prefix('x').and_then(|n| n.parse().ok()))?;
    let has = |s: &str| segs.contains(&s);
    if !has("sync") || !has("aligned") || !matches!(num, 1 | 2 | 4) {
        return None;
    }
    let (per_matrix, bytes) = match (segs[0], segs.get(3).copied()?) {
        ("ldmatrix" | "stmatrix", "m8n8") if has("b16") => (8, 16),
        ("ldmatrix", "m16n16") if has("b8") && has("trans") && num <= 2 => (16, 16),
        ("stmatrix", "m16n8") if has("b8") && has("trans") => (16, 8),
        _ => return None,
    };
    Some(Rows {
        lanes: per_matrix * num,
        bytes,
    })
}

impl<'a> Lowerer<'a> {
    /// An `ldmatrix` or `stmatrix`: a read or write of one row at the address the lane
    /// supplies, by the lanes that supply one.
    pub(super) fn asm_matrix(&mut self, ins: &Instr, cx: &AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let unmodelled = |why: &str| {
            FrontError::unsupported(span, format!("inline PTX `{opcode}`: {why}"))
                .with_help("express the access in CUDA C++ or move it out of the checked kernel")
        };
        let rows = rows(opcode).ok_or_else(|| unmodelled("this shape or type is not modelled"))?;
        if ins.guard.is_some() {
            return Err(unmodelled("a predicated warp-collective matrix access"));
        }
        let addr = ins
            .operands
            .iter()
            .find(|o| o.starts_with('['))
            .ok_or_else(|| unmodelled("no address operand"))?;
        let (array, offset, access_span) = self.asm_place(addr, opcode, cx)?;
        if self.arrays[array.0 as usize].space != Space::Shared {
            let name = self.arrays[array.0 as usize].name.clone();
            return Err(unmodelled(&format!(
                "it addresses `{name}`, which is not in shared memory"
            )));
        }
        let access = Access {
            array,
            kind: if opcode.starts_with("st") {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
            offset,
            size: rows.bytes,
            span: access_span,
        };
        let op = match access.kind {
            // Each row holds values other lanes gave: unknown to the lane naming it.
            AccessKind::Write => Op::Write(access, per_thread_unknown(ScalarTy::Opaque)),
            _ => Op::Read(None, access),
        };
        if rows.lanes >= 32 {
            self.ops.push(op);
            return Ok(());
        }
        // Only the first lanes' addresses are used.
        let lane = Expr::Bin(
            BinOp::Rem,
            ScalarTy::U32,
            Box::new(linear_tid()),
            Box::new(Expr::Const(32, ScalarTy::U32)),
        );
        let cond = Expr::Bin(
            BinOp::Lt,
            ScalarTy::U32,
            Box::new(lane),
            Box::new(Expr::Const(rows.lanes, ScalarTy::U32)),
        );
        self.flush(false);
        let then = self.sub_block(|lw| {
            lw.ops.push(op);
            Ok(())
        })?;
        self.synthetic_if(cond, then);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_the_modelled_forms() {
        let r = |lanes, bytes| Some(Rows { lanes, bytes });
        assert_eq!(rows("ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16"), r(32, 16));
        assert_eq!(rows("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"), r(8, 16));
        assert_eq!(rows("stmatrix.sync.aligned.m8n8.x2.shared.b16"), r(16, 16));
        assert_eq!(rows("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8"), r(32, 16));
        assert_eq!(rows("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8"), r(16, 8));
    }

    #[test]
    fn other_forms_are_not_modelled() {
        assert_eq!(rows("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32"), None);
        assert_eq!(rows("ldmatrix.sync.aligned.m8n8.x3.shared.b16"), None);
        assert_eq!(rows("ldmatrix.aligned.m8n8.x4.shared.b16"), None);
        assert_eq!(rows("ldmatrix.sync.aligned.m16n16.x4.trans.shared.b8"), None);
    }
}
