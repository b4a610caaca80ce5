//! Inline PTX: Clang's AST keeps an asm statement's operands but not its text, so the text
//! is read from the source (where its tokens are spelled) and parsed here. Every instruction
//! is modelled (barriers, memory accesses, the end of the thread's path, register values) or
//! stops the kernel naming it ([`ptx::classify`] sorts them); nothing is skipped.

mod matrix;
mod memory;
mod regs;
mod sync;
mod text;
mod values;
mod wgmma;

pub(crate) use regs::{operand_index, AsmCx, Reg};
pub(crate) use text::{barrier_kind, parse_asm};

use super::convert::*;
use super::lowerer::Lowerer;
use super::ptx::{self, Class, Instr};
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use regs::*;
use std::collections::HashMap;
use text::AsmText;

impl<'a> Lowerer<'a> {
    /// Lowers an asm statement. Every instruction is modelled (barriers, accesses, the end of
    /// the thread's path, register computations) or the kernel is inconclusive naming it.
    pub(crate) fn asm(&mut self, n: NodeId) -> FResult<()> {
        let span = self.span(n);
        let text = self
            .src
            .spelled_text(n)
            .ok_or_else(|| FrontError::unsupported(span, "the text of this asm statement cannot be read"))?;
        // A template a macro builds is read from Clang's preprocessed output instead.
        let asm = parse_asm(&text)
            .or_else(|m| {
                let expanded = self.src.expanded_asm_text(n).ok_or(m.clone())?;
                parse_asm(&expanded).map_err(|_| m)
            })
            .map_err(|m| FrontError::unsupported(span, format!("inline asm: {m}")))?;
        // Operand expressions: outputs first, then inputs (as `%0`, `%1`, ...).
        let operands = self.expr_children(n);
        if operands.len() != asm.outputs.len() + asm.inputs.len() {
            return Err(FrontError::unsupported(
                span,
                "inline asm whose operands autosync cannot match to its text",
            ));
        }
        let instrs = ptx::instructions(&asm.template);
        let classes: Vec<Class> = instrs.iter().map(|i| ptx::classify(&i.opcode)).collect();
        for (i, c) in instrs.iter().zip(&classes) {
            refuse(i, *c, span)?;
        }
        let branches = classes.contains(&Class::Branch);
        let mut cx = AsmCx {
            operands: operands.clone(),
            n_out: asm.outputs.len(),
            regs: HashMap::new(),
            span,
        };
        if branches {
            // A wait loop around an mbarrier test, written in PTX: a wait.
            if let Some(t) = Self::ptx_wait_loop(&instrs, &classes) {
                self.asm_wait(&instrs[t], &mut cx)?;
                return self.asm_outputs(&asm, &cx, false);
            }
            let effect = instrs.iter().zip(&classes).find(|(_, c)| {
                matches!(
                    c,
                    Class::Barrier | Class::WarpSync | Class::Memory | Class::Matrix | Class::PathEnd | Class::Async
                )
            });
            if let Some((i, _)) = effect {
                return Err(FrontError::unsupported(
                    span,
                    format!("control flow inside inline asm decides whether `{}` runs", i.text),
                )
                .with_help("write the branch in CUDA C++ around asm statements without branches"));
            }
        }
        let mut found_barrier = false;
        for (ins, class) in instrs.iter().zip(classes) {
            match class {
                Class::Barrier | Class::WarpSync => {
                    if ins.guard.is_some() {
                        return Err(FrontError::unsupported(
                            span,
                            format!("a predicated barrier `{}`", ins.text),
                        ));
                    }
                    self.asm_barrier(ins, class, &mut cx)?;
                    found_barrier = true;
                }
                Class::Memory => match &ins.guard {
                    None => self.asm_memory(ins, &cx)?,
                    Some(g) => {
                        let cond = guard_cond(g, &cx);
                        self.flush(false);
                        let then = self.sub_block(|lw| lw.asm_memory(ins, &cx))?;
                        self.synthetic_if(cond, then);
                    }
                },
                Class::PathEnd => {
                    self.flush(false);
                    let end = match ins.opcode.as_str() {
                        "exit" => StmtKind::Return { trap: None },
                        trap => self.trap(trap),
                    };
                    match &ins.guard {
                        None => {
                            self.push_synthetic(end);
                            // The rest of the asm never runs.
                            return Ok(());
                        }
                        Some(g) => {
                            let cond = guard_cond(g, &cx);
                            let then = self.sub_block(|lw| {
                                lw.push_synthetic(end);
                                Ok(())
                            })?;
                            self.synthetic_if(cond, then);
                        }
                    }
                }
                // Memory ordering without synchronization removes no race; a prefetch changes
                // no value; a branch with no effect around it changes only registers.
                Class::Order if ins.opcode.starts_with("griddepcontrol.wait") => {
                    self.grid_wait.get_or_insert(cx.span);
                }
                Class::Order | Class::Prefetch | Class::Branch => {}
                Class::Value => self.asm_value(ins, &mut cx, branches)?,
                Class::Matrix => self.asm_matrix(ins, &cx)?,
                Class::Async => self.asm_async(ins, &mut cx)?,
                Class::Unmodelled | Class::Unknown => {}
            }
        }
        self.asm_outputs(&asm, &cx, found_barrier)
    }

    /// Stores the outputs (computed values where the asm was followed, else per-thread
    /// unknowns) and evaluates the inputs for their reads.
    fn asm_outputs(&mut self, asm: &AsmText, cx: &AsmCx, found_barrier: bool) -> FResult<()> {
        let span = cx.span;
        let operands = &cx.operands;
        // Address conversions (`cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t;`): the output is
        // the pointer the one input holds.
        if let (1, Some(Reg::Addr(1, off))) = (asm.outputs.len(), cx.regs.get("%0")) {
            if operands.len() == 2 && self.derived_from_pointer(operands[1]) {
                let p = self.asm_address(operands[1], span)?;
                let p = Pointer {
                    off: add_offset(p.off, Expr::Const(*off, ScalarTy::U64), 1),
                    ..p
                };
                let lv = self.lvalue(operands[0])?;
                return self.store(lv, RV::Ptr(p), span);
            }
        }
        for (i, &op) in operands.iter().enumerate() {
            if i < asm.outputs.len() {
                let lv = self.lvalue(op)?;
                if asm.outputs[i].contains('+') {
                    self.load(lv.clone(), span)?;
                }
                let t = self.type_of(op);
                let v = match (&t, cx.regs.get(&format!("%{i}"))) {
                    (CType::Ptr(p), _) => RV::Ptr(Pointer {
                        region: Region::Unknown("a pointer written by inline asm".into()),
                        off: Expr::Const(0, ScalarTy::U64),
                        pointee: (**p).clone(),
                    }),
                    (t, Some(Reg::Val(e, et))) if t.is_integral() => {
                        RV::Scalar(convert(e.clone(), &ctype_of(*et), t), t.clone())
                    }
                    (t, _) => RV::Scalar(per_thread_unknown(t.scalar()), t.clone()),
                };
                self.store(lv, v, span)?;
            } else if !found_barrier {
                self.rvalue(op)?;
            }
        }
        Ok(())
    }
}

/// Stops the kernel at an instruction autosync does not model.
fn refuse(i: &Instr, class: Class, span: Span) -> FResult<()> {
    let (what, help) = match class {
        Class::Unmodelled => (
            "it accesses memory in a way autosync does not model",
            "express the access in CUDA C++ or move it out of the checked kernel",
        ),
        Class::Unknown => (
            "autosync does not know this instruction; it may access memory or synchronize",
            "if it does neither, write it outside the checked kernel or report it to autosync",
        ),
        _ => return Ok(()),
    };
    Err(FrontError::unsupported(span, format!("inline PTX `{}`: {what}", i.opcode)).with_help(help))
}
