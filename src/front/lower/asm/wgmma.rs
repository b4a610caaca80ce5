//! Warpgroup MMA (`wgmma`, sm_90a): `mma_async` reads its shared-memory operands through
//! matrix descriptors asynchronously, until the thread's `wgmma.wait_group` retires the group
//! `wgmma.commit_group` put it in. The accumulators are registers: only the shared reads
//! matter to races. `wgmma.fence` orders register accesses only.

use super::regs::AsmCx;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::convert;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::ptx::Instr;
use autosync_oracle::ir::*;

/// Unsupported: a `wgmma` form autosync does not model.
fn not_modelled(span: Span, opcode: &str, why: &str) -> FrontError {
    FrontError::unsupported(span, format!("inline PTX `{opcode}`: {why}")).with_help(
        "autosync models dense wgmma.mma_async with shared operands read through matrix descriptors; see docs/named.md",
    )
}

/// The shape `mMnNkK` of an opcode: (M, N).
fn shape(opcode: &str) -> Option<(u32, u32)> {
    let seg = opcode
        .split('.')
        .find(|s| s.starts_with('m') && s.contains('n') && s.contains('k'))?;
    let (m, rest) = seg[1..].split_once('n')?;
    let (n, _k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?))
}

/// Bytes per element of the A/B type (the segment after the accumulator type).
fn elem_bytes(opcode: &str) -> Option<u32> {
    let types: Vec<&str> = opcode
        .split('.')
        .filter(|s| {
            matches!(
                *s,
                "f16" | "bf16" | "tf32" | "e4m3" | "e5m2" | "s8" | "u8" | "b1" | "f32" | "s32"
            )
        })
        .collect();
    // d-type, a-type, b-type.
    match types.get(1).copied()? {
        "f16" | "bf16" => Some(2),
        "tf32" => Some(4),
        "e4m3" | "e5m2" | "s8" | "u8" => Some(1),
        _ => None,
    }
}

impl<'a> Lowerer<'a> {
    /// A `wgmma.*` instruction.
    pub(crate) fn asm_wgmma(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        if ins.guard.is_some() {
            return Err(not_modelled(span, opcode, "a predicated wgmma is not modelled"));
        }
        match opcode.split('.').nth(1).unwrap_or("") {
            // Orders the warpgroup's register accesses against wgmma; registers are private.
            "fence" => {}
            "commit_group" => self.ops.push(Op::AsyncGroup(AsyncGroupOp::WgmmaCommit)),
            "wait_group" => {
                let n = ins
                    .operands
                    .first()
                    .and_then(|o| self.asm_const(o, cx))
                    .filter(|n| *n >= 0)
                    .ok_or_else(|| not_modelled(span, opcode, "a group count that is not a constant"))?;
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::WgmmaWait(n as u32)));
            }
            "mma_async" if !opcode.contains(".sp") => self.asm_mma_async(ins, cx)?,
            _ => return Err(not_modelled(span, opcode, "this wgmma form is not modelled")),
        }
        Ok(())
    }

    /// `wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a, b-desc, scale-d,
    /// imm-scale-a, imm-scale-b[, imm-trans-a], [imm-trans-b]`: `a` is a descriptor or a
    /// `{...}` register vector; the transposes exist for 16-bit types only.
    fn asm_mma_async(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let ops = &ins.operands;
        let (m, n) = shape(opcode).ok_or_else(|| not_modelled(span, opcode, "its shape is not mMnNkK"))?;
        let elem = elem_bytes(opcode).ok_or_else(|| not_modelled(span, opcode, "its operand type is not modelled"))?;
        if ops.len() < 6 {
            return Err(FrontError::input(span, format!("`{}` has too few operands", ins.text)));
        }
        let a_regs = ops[1].trim_start().starts_with('{');
        // The transposes follow the scales: `[imm-trans-a,] imm-trans-b` for 16-bit types.
        let trans: Vec<i64> = ops[6..]
            .iter()
            .map(|o| {
                self.asm_const(o, cx)
                    .ok_or_else(|| not_modelled(span, opcode, "a transpose that is not a constant"))
            })
            .collect::<FResult<_>>()?;
        let (trans_a, trans_b) = match (a_regs, &trans[..]) {
            (_, []) => (0, 0),
            (true, [b]) => (0, *b),
            (false, [a, b]) => (*a, *b),
            _ => return Err(FrontError::input(span, format!("`{}`: unexpected operands", ins.text))),
        };
        let mut reads = Vec::new();
        if !a_regs {
            reads.push(self.wgmma_operand(&ops[1], m, elem, trans_a != 0, cx)?);
        }
        reads.push(self.wgmma_operand(&ops[2], n, elem, trans_b != 0, cx)?);
        // The scale-d input (a predicate or register) is read; it changes no memory.
        self.ops.push(Op::Wgmma(reads));
        Ok(())
    }

    /// One descriptor operand: the shared array its address comes from.
    fn wgmma_operand(
        &mut self,
        o: &str,
        rows: u32,
        elem: u32,
        mn_major: bool,
        cx: &mut AsmCx,
    ) -> FResult<WgmmaOperand> {
        let span = cx.span;
        let desc = self.asm_operand64(o, cx)?;
        let array = self.provenance(&desc).ok_or_else(|| {
            FrontError::unsupported(
                span,
                format!("the wgmma descriptor `{o}` is not computed from one array's address"),
            )
            .with_help("build the descriptor from the address of the shared tile it reads")
        })?;
        self.require_shared(array, span, "a wgmma descriptor into")?;
        let base = self.address_number_of(array);
        Ok(WgmmaOperand {
            array,
            desc: convert(desc, &CType::U64, &CType::U64),
            base,
            rows,
            elem_bytes: elem,
            mn_major,
            span,
        })
    }
}
