//! Synchronization instructions: `bar`/`barrier` forms (block-wide and named) and mbarrier
//! waits.

use super::regs::*;
use super::text::barrier_kind;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::ptx::{Class, Instr};
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A wait loop written in PTX around test `ins`: a wait on its phase.
    pub(super) fn asm_wait(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let op = |i: usize| -> FResult<String> {
            ins.operands
                .get(i)
                .cloned()
                .ok_or_else(|| FrontError::input(span, format!("`{}` has too few operands", ins.text)))
        };
        let (array, offset, bspan) = self.asm_place(&op(1)?, opcode, cx)?;
        if self.arrays[array.0 as usize].space != Space::Shared {
            return Err(FrontError::unsupported(
                span,
                format!("`{opcode}` on memory that is not shared"),
            ));
        }
        let phase = if opcode.split('.').any(|s| s == "parity") {
            MbarPhase::Parity(self.asm_operand(&op(2)?, cx)?)
        } else {
            let o = op(2)?;
            let i = operand_index(&o).ok_or_else(|| {
                FrontError::unsupported(span, format!("`{opcode}` with a state that is not an operand"))
            })?;
            let node = *cx
                .operands
                .get(i)
                .ok_or_else(|| FrontError::input(span, format!("asm operand `{o}` does not exist")))?;
            let (e, t) = self.scalar(node)?;
            MbarPhase::Token(convert(e, &t, &CType::U64))
        };
        let b = MbarRef {
            array,
            offset,
            span: bspan,
        };
        self.ops.push(Op::Mbarrier(b, MbarOp::Wait { phase }));
        Ok(())
    }

    /// `bar.sync`/`barrier.sync`/`bar.arrive`/`bar.red` with immediate, `%N` or followed
    /// register operands; `bar.warp.sync` is `__syncwarp`.
    pub(super) fn asm_barrier(&mut self, ins: &Instr, class: Class, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        if class == Class::WarpSync {
            for o in &ins.operands {
                self.asm_operand(o, cx)?;
            }
            self.barrier(Barrier::Warp, BarrierSyntax::Asm);
            return Ok(());
        }
        let kind = barrier_kind(&ins.opcode).unwrap_or("sync");
        // `bar.red.op.type d, a{, b}, {!}c`: the destination and the predicate are not barrier
        // operands.
        let ops: Vec<&String> = match kind {
            "red" => {
                let n = ins.operands.len();
                if n < 3 {
                    return Err(FrontError::input(span, format!("`{}` needs d, a, c", ins.text)));
                }
                if let Some(d) = ins.operands.first() {
                    cx.regs.remove(d.as_str());
                }
                ins.operands[1..n - 1].iter().collect()
            }
            _ => ins.operands.iter().collect(),
        };
        let mut vals = Vec::new();
        for o in ops {
            vals.push(self.asm_operand(o, cx)?);
        }
        let id = vals
            .first()
            .cloned()
            .ok_or_else(|| FrontError::input(span, format!("`{}` needs a barrier id", ins.text)))?;
        let count = vals.get(1).cloned();
        let b = match kind {
            "sync" | "red" => match (&id, &count) {
                (Expr::Const(0, _), None) => Barrier::Block,
                _ => Barrier::NamedSync { id, count },
            },
            "arrive" => Barrier::NamedArrive {
                id,
                count: count.ok_or_else(|| {
                    FrontError::input(span, "bar.arrive needs a thread count").with_help("write bar.arrive id, count")
                })?,
            },
            other => {
                return Err(FrontError::unsupported(
                    span,
                    format!("unknown barrier form `{}` (`.{other}`)", ins.opcode),
                ))
            }
        };
        self.barrier(b, BarrierSyntax::Asm);
        Ok(())
    }
}
