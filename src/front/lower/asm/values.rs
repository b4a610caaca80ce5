//! Register values: moves, conversions, arithmetic, `bfe` and `setp` followed through the
//! asm's registers, constants of operands.

use super::regs::*;
use crate::front::error::FResult;
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::ptx::{self, Instr};
use crate::front::lower::types::parse_int;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A register computation: follows moves of special registers, operands and immediates,
    /// address arithmetic, `setp` and `elect.sync`; anything else leaves its destination
    /// unknown. Under a guard or with branches in the asm, nothing is followed.
    pub(super) fn asm_value(&mut self, ins: &Instr, cx: &mut AsmCx, branches: bool) -> FResult<()> {
        let Some(dst) = ins.operands.first() else {
            return Ok(());
        };
        let dsts: Vec<String> = dst.split('|').map(|d| d.trim().to_string()).collect();
        for d in &dsts {
            cx.regs.remove(d.as_str());
        }
        if ins.guard.is_some() || branches {
            return Ok(());
        }
        let segs: Vec<&str> = ins.opcode.split('.').collect();
        let src = ins.operands.get(1).map(String::as_str).unwrap_or("");
        let follow = match segs[0] {
            "mov" | "cvta" | "cvt" => self.asm_follow(src, segs.last().copied().and_then(int_type), cx),
            "add" | "sub" => match (cx.regs.get(src), ins.operands.get(2).and_then(|o| parse_int(o))) {
                (Some(Reg::Addr(i, off)), Some(c)) => {
                    Some(Reg::Addr(*i, if segs[0] == "add" { off + c } else { off - c }))
                }
                _ => None,
            },
            "setp" => self.asm_setp(&segs, &ins.operands, cx),
            "bfe" => self.asm_bfe(&segs, &ins.operands, cx),
            // `selp.type d, a, b, c`: c ? a : b.
            "selp" => match (
                segs.last().copied().and_then(int_type),
                cx.regs.get(ins.operands.get(3).map(String::as_str).unwrap_or("")),
            ) {
                (Some(ty), Some(Reg::Pred(c))) => {
                    let c = c.clone();
                    let a = self.asm_follow(src, Some(ty), cx);
                    let b = self.asm_follow(ins.operands.get(2).map(String::as_str).unwrap_or(""), Some(ty), cx);
                    match (a, b) {
                        (Some(Reg::Val(a, _)), Some(Reg::Val(b, _))) => {
                            Some(Reg::Val(Expr::Select(Box::new(c), Box::new(a), Box::new(b)), ty))
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
            "elect" => {
                // `elect.sync d|p, membermask`: every lane of the mask waits for the others, and
                // the lowest one is elected.
                let mask = ins.operands.get(1).and_then(|o| self.asm_const(o, cx));
                if let (Some(m), Some(p)) = (mask.filter(|m| *m as u32 != 0), dsts.get(1)) {
                    let (lane, _) = special_value("laneid");
                    let leader = Expr::Const((m as u32).trailing_zeros() as i64, ScalarTy::U32);
                    cx.regs.insert(
                        p.clone(),
                        Reg::Pred(Expr::Bin(BinOp::Eq, ScalarTy::U32, Box::new(lane), Box::new(leader))),
                    );
                }
                None
            }
            _ => None,
        };
        if let (Some(r), [d]) = (follow, &dsts[..]) {
            cx.regs.insert(d.clone(), r);
        }
        Ok(())
    }

    /// What `src` holds when moved into a register of type `ty`.
    fn asm_follow(&mut self, src: &str, ty: Option<ScalarTy>, cx: &AsmCx) -> Option<Reg> {
        if let Some(r) = cx.regs.get(src) {
            return match (r, ty) {
                (Reg::Val(e, from), Some(to)) if *from == to => Some(Reg::Val(e.clone(), to)),
                (Reg::Val(e, _), Some(to)) => Some(Reg::Val(Expr::Cast(to, Box::new(e.clone())), to)),
                (Reg::Val(..), None) | (Reg::Pred(_), _) => None,
                (a @ Reg::Addr(..), _) => Some(a.clone()),
            };
        }
        if let Some(i) = operand_index(src) {
            let node = *cx.operands.get(i)?;
            if i >= cx.n_out && self.derived_from_pointer(node) {
                return Some(Reg::Addr(i, 0));
            }
        }
        let to = ty?;
        let (e, from) = if let Some(name) = ptx::special_register(src) {
            special_value(name)
        } else if let Some(c) = self.asm_const(src, cx) {
            (Expr::Const(c, to), to)
        } else {
            // An integer input the C side computes without side effects (so that reading it
            // here as well as after the asm changes nothing): its value.
            let node = *cx.operands.get(operand_index(src).filter(|&i| i >= cx.n_out)?)?;
            if self.has_effects(node) || !self.type_of(node).is_integral() {
                return None;
            }
            let (e, t) = self.scalar(node).ok()?;
            (e, t.scalar())
        };
        Some(Reg::Val(if from == to { e } else { Expr::Cast(to, Box::new(e)) }, to))
    }

    /// `bfe.u32/u64 d, a, pos, len`: `len` bits of `a` from bit `pos`, zero-extended (PTX takes
    /// the low 8 bits of `pos` and `len`; past the top of `a` the bits are 0).
    fn asm_bfe(&mut self, segs: &[&str], operands: &[String], cx: &AsmCx) -> Option<Reg> {
        let ty = segs.last().copied().filter(|s| s.starts_with('u')).and_then(int_type)?;
        let ScalarTy::Int { bits, .. } = ty else { return None };
        let a = match self.asm_follow(operands.get(1)?, Some(ty), cx)? {
            Reg::Val(e, _) => e,
            _ => return None,
        };
        let mut low8 = |o: &str| match self.asm_follow(o, Some(ScalarTy::U32), cx) {
            Some(Reg::Val(e, _)) => Some(bin(BinOp::BitAnd, ScalarTy::U32, e, Expr::Const(255, ScalarTy::U32))),
            _ => None,
        };
        let pos = low8(operands.get(2)?)?;
        let len = low8(operands.get(3)?)?;
        let wide = |e: Expr| Expr::Cast(ty, Box::new(e));
        let width = Expr::Const(bits as i64, ScalarTy::U32);
        let shifted = bin(BinOp::Shr, ty, a, wide(pos.clone()));
        let one = Expr::Const(1, ty);
        let mask = bin(BinOp::Sub, ty, bin(BinOp::Shl, ty, one.clone(), wide(len.clone())), one);
        // Shifts by the width or more are spelled out: 0 past the top, every bit for a long field.
        let field = Expr::Select(
            Box::new(bin(BinOp::Ge, ScalarTy::U32, len, width.clone())),
            Box::new(shifted.clone()),
            Box::new(bin(BinOp::BitAnd, ty, shifted, mask)),
        );
        let value = Expr::Select(
            Box::new(bin(BinOp::Ge, ScalarTy::U32, pos, width)),
            Box::new(Expr::Const(0, ty)),
            Box::new(field),
        );
        Some(Reg::Val(value, ty))
    }

    /// `setp.cmp.type p[|q], a, b`: the predicate as an IR condition when both sides are known.
    fn asm_setp(&mut self, segs: &[&str], operands: &[String], cx: &AsmCx) -> Option<Reg> {
        let ty = int_type(segs.last()?)?;
        let op = match segs.get(1).copied()? {
            "eq" => BinOp::Eq,
            "ne" => BinOp::Ne,
            "lt" | "lo" => BinOp::Lt,
            "le" | "ls" => BinOp::Le,
            "gt" | "hi" => BinOp::Gt,
            "ge" | "hs" => BinOp::Ge,
            _ => return None,
        };
        let side = |lw: &mut Self, o: &str| -> Option<Expr> {
            if let Some(Reg::Val(e, t)) = cx.regs.get(o) {
                return Some(if *t == ty {
                    e.clone()
                } else {
                    Expr::Cast(ty, Box::new(e.clone()))
                });
            }
            if let Some(name) = ptx::special_register(o) {
                return Some(Expr::Cast(ty, Box::new(special_value(name).0)));
            }
            if let Some(i) = operand_index(o).filter(|&i| i >= cx.n_out) {
                let node = *cx.operands.get(i)?;
                if lw.type_of(node).is_integral() {
                    let (e, t) = lw.scalar(node).ok()?;
                    return Some(convert(e, &t, &ctype_of(ty)));
                }
                return None;
            }
            Some(Expr::Const(lw.asm_const(o, cx)?, ty))
        };
        let a = side(self, operands.get(1)?)?;
        let b = side(self, operands.get(2)?)?;
        Some(Reg::Pred(Expr::Bin(op, ty, Box::new(a), Box::new(b))))
    }

    /// An immediate or a `%N` operand whose value is a constant.
    pub(crate) fn asm_const(&mut self, o: &str, cx: &AsmCx) -> Option<i64> {
        match operand_index(o) {
            Some(i) if i >= cx.n_out => self.const_eval(*cx.operands.get(i)?, 0),
            Some(_) => None,
            None => parse_int(o),
        }
    }
}
