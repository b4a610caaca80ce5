//! Memory instructions: loads and stores at an operand's address, the address traced back to
//! the array the C++ operand points into (`__cvta_generic_to_shared` and integer arithmetic on
//! pointers included), and the values stored.

use super::regs::*;
use crate::front::ast::{BinaryOp, NodeId, NodeKind};
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use crate::front::lower::convert::*;
use crate::front::lower::lowerer::Lowerer;
use crate::front::lower::ptx::{self, Instr};
use crate::front::lower::types::parse_int;
use crate::front::lower::values::*;
use autosync_oracle::ir::*;

impl<'a> Lowerer<'a> {
    /// A PTX memory instruction: `ld`/`ldu` reads, `st` writes, `atom`/`red` atomics, of the
    /// width its type and vector suffixes give, at the address its `[%N+imm]` operand (or a
    /// register the asm made from one) names.
    pub(super) fn asm_memory(&mut self, ins: &Instr, cx: &AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let segs: Vec<&str> = opcode.split('.').collect();
        if segs[0] == "ld" && segs.contains(&"nc") {
            self.nc_load(opcode, span);
        }
        let kind = match segs[0] {
            "ld" | "ldu" => AccessKind::Read,
            "st" => AccessKind::Write,
            _ => AccessKind::Atomic,
        };
        let space = match ptx::state_space(opcode) {
            Some("global") => Some(Space::Global),
            Some("shared") => Some(Space::Shared),
            Some("local") => Some(Space::Local),
            Some(other) => {
                return Err(FrontError::unsupported(
                    span,
                    format!("inline asm `{opcode}`: the `{other}` state space is not modelled"),
                )
                .with_help(if other == "shared::cluster" {
                    "an address in shared::cluster may name another block's shared memory"
                } else {
                    "express the access in CUDA C++"
                }))
            }
            None => None,
        };
        let vec: u32 = segs
            .iter()
            .find_map(|s| s.strip_prefix('v').and_then(|n| n.parse().ok()))
            .unwrap_or(1);
        let bits =
            segs.iter().rev().find_map(|s| ptx::type_bytes(s)).ok_or_else(|| {
                FrontError::unsupported(span, format!("inline asm `{opcode}` without an operand type"))
            })?;
        let size = vec * bits;
        let addr = ins
            .operands
            .iter()
            .find(|o| o.starts_with('['))
            .ok_or_else(|| FrontError::unsupported(span, format!("`{opcode}` without an address")))?;
        let (array, off, access_span) = self.asm_place(addr, opcode, cx)?;
        let actual = self.arrays[array.0 as usize].space;
        if let Some(sp) = space {
            if sp != actual {
                return Err(FrontError::unsupported(
                    span,
                    format!(
                        "inline asm `{opcode}` addresses `{}`, which is not in {sp:?} memory",
                        self.arrays[array.0 as usize].name
                    ),
                ));
            }
        }
        let access = Access {
            array,
            kind,
            offset: off,
            size,
            span: access_span,
        };
        // A store writes its value operand (a per-thread unknown unless it is one `%N` of an
        // integer type or a constant): "every thread stores the same value" must not be assumed.
        let stored = match ins.operands.last().map(String::as_str) {
            Some(o) if kind == AccessKind::Write => self.asm_stored(o, size, cx)?,
            _ => per_thread_unknown(ScalarTy::Opaque),
        };
        self.ops.push(match kind {
            AccessKind::Read => Op::Read(None, access),
            AccessKind::Write => Op::Write(access, stored),
            AccessKind::Atomic => Op::Atomic(None, access, AtomicOp::Other),
        });
        Ok(())
    }

    /// The array element an address operand (`[%N]`, `[%N+8]`, `[%N + -4]`, `[r]` for a
    /// register the asm made from `%N`) names: array, byte offset, span of the operand.
    pub(crate) fn asm_place(&mut self, addr: &str, opcode: &str, cx: &AsmCx) -> FResult<(ArrayId, Expr, Span)> {
        let span = cx.span;
        let addr = addr
            .trim()
            .strip_prefix('[')
            .and_then(|o| o.strip_suffix(']'))
            .ok_or_else(|| FrontError::unsupported(span, format!("`{opcode}`: `{addr}` is not an address")))?
            .replace(char::is_whitespace, "");
        let (reg, imm) = match addr.find(['+', '-']) {
            Some(i) if i > 0 => {
                let imm = parse_int(addr[i..].trim_start_matches('+'))
                    .ok_or_else(|| FrontError::unsupported(span, format!("asm address `[{addr}]`")))?;
                (&addr[..i], imm)
            }
            _ => (addr.as_str(), 0),
        };
        let (idx, imm) = match (operand_index(reg), cx.regs.get(reg)) {
            (Some(i), _) => (i, imm),
            (None, Some(Reg::Addr(i, off))) => (*i, imm + off),
            _ => {
                return Err(FrontError::unsupported(
                    span,
                    format!("asm address `[{addr}]` is not an operand autosync can follow"),
                ))
            }
        };
        let node = *cx
            .operands
            .get(idx)
            .ok_or_else(|| FrontError::input(span, format!("asm operand %{idx} does not exist")))?;
        let p = self.asm_address(node, span)?;
        let Region::Array(array) = p.region else {
            return Err(FrontError::unsupported(
                span,
                format!("inline asm `{opcode}` through {}", self.region_name(&p.region)),
            ));
        };
        let off = add_offset(p.off, Expr::Const(imm, ScalarTy::U64), 1);
        Ok((array, off, self.span(node)))
    }

    /// The pointer an asm address operand holds: a pointer, or an integer made from one
    /// (`(unsigned)__cvta_generic_to_shared(p) + 4 * i`).
    pub(super) fn asm_address(&mut self, n: NodeId, span: Span) -> FResult<Pointer> {
        let ast = self.ast;
        match ast.kind(n) {
            NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXReinterpretCastExpr
            | NodeKind::ParenExpr
            | NodeKind::CXXFunctionalCastExpr
                if !self.type_of(n).is_pointer() || !self.type_of(self.expr_children(n)[0]).is_pointer() =>
            {
                let c = *self
                    .expr_children(n)
                    .first()
                    .ok_or_else(|| FrontError::input(span, "empty cast"))?;
                if self.type_of(c).is_pointer() || !self.type_of(c).is_integral() || self.derived_from_pointer(c) {
                    return self.asm_address(c, span);
                }
                self.pointer(n)
            }
            NodeKind::CallExpr => {
                let name = self
                    .expr_children(n)
                    .first()
                    .and_then(|&c| {
                        let mut c = c;
                        while ast.kind(c) == NodeKind::ImplicitCastExpr {
                            c = ast.children(c).next()?;
                        }
                        ast.node(c).attrs.referenced.map(|r| ast.str(r.name).to_string())
                    })
                    .unwrap_or_default();
                if name.starts_with("__cvta_generic_to_") {
                    let arg = *self
                        .expr_children(n)
                        .get(1)
                        .ok_or_else(|| FrontError::input(span, "cvta without argument"))?;
                    return self.asm_address(arg, span);
                }
                self.pointer(n)
            }
            NodeKind::BinaryOperator if !self.type_of(n).is_pointer() => {
                let op = ast.binary_op(n);
                let kids = self.expr_children(n);
                let [l, r] = kids[..] else { return self.pointer(n) };
                if matches!(op, Some(BinaryOp::Add | BinaryOp::Sub)) && self.derived_from_pointer(l) {
                    let p = self.asm_address(l, span)?;
                    let (e, t) = self.scalar(r)?;
                    let mut d = convert(e, &t, &CType::U64);
                    if op == Some(BinaryOp::Sub) {
                        d = Expr::Un(UnOp::Neg, ScalarTy::U64, Box::new(d));
                    }
                    return Ok(Pointer {
                        off: add_offset(p.off, d, 1),
                        ..p
                    });
                }
                self.pointer(n)
            }
            _ => self.pointer(n),
        }
    }

    /// Whether an integer expression is a pointer converted to an integer (possibly offset).
    pub(super) fn derived_from_pointer(&self, n: NodeId) -> bool {
        let ast = self.ast;
        if self.type_of(n).is_pointer() {
            return true;
        }
        match ast.kind(n) {
            NodeKind::ImplicitCastExpr
            | NodeKind::CStyleCastExpr
            | NodeKind::CXXStaticCastExpr
            | NodeKind::CXXReinterpretCastExpr
            | NodeKind::ParenExpr
            | NodeKind::CXXFunctionalCastExpr => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            NodeKind::BinaryOperator => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            NodeKind::DeclRefExpr => ast
                .node(n)
                .attrs
                .referenced
                .is_some_and(|r| matches!(self.env.get(&r.id), Some(Binding::Ptr(_)))),
            NodeKind::CallExpr => {
                let mut found = false;
                ast.walk(n, &mut |c| {
                    if let Some(r) = ast.node(c).attrs.referenced {
                        found |= ast.str(r.name).starts_with("__cvta_generic_to_");
                    }
                });
                found
            }
            _ => false,
        }
    }

    /// The value a store of `size` bytes writes from operand `o`.
    fn asm_stored(&mut self, o: &str, size: u32, cx: &AsmCx) -> FResult<Expr> {
        if let Some(Reg::Val(e, ScalarTy::Int { bits, .. })) = cx.regs.get(o) {
            if *bits as u32 == size * 8 {
                return Ok(e.clone());
            }
        }
        if let Some(i) = operand_index(o).filter(|&i| i >= cx.n_out) {
            let node = *cx
                .operands
                .get(i)
                .ok_or_else(|| FrontError::input(cx.span, format!("asm operand `{o}` does not exist")))?;
            let t = self.type_of(node);
            if t.is_integral() && self.size_of(&t, cx.span)? == size as u64 {
                return Ok(self.scalar(node)?.0);
            }
        }
        if let Some(v) = parse_int(o) {
            return Ok(Expr::Const(
                v,
                ScalarTy::Int {
                    bits: (size * 8).min(64) as u8,
                    signed: false,
                },
            ));
        }
        Ok(per_thread_unknown(ScalarTy::Opaque))
    }

    /// A barrier operand: `%N` (an operand expression), a register the asm computed, or a
    /// literal.
    pub(crate) fn asm_operand(&mut self, o: &str, cx: &AsmCx) -> FResult<Expr> {
        let span = cx.span;
        if let Some(Reg::Val(e, t)) = cx.regs.get(o) {
            return Ok(convert(e.clone(), &ctype_of(*t), &CType::UINT));
        }
        if let Some(i) = operand_index(o) {
            let node = *cx
                .operands
                .get(i)
                .ok_or_else(|| FrontError::input(span, format!("asm operand `{o}` does not exist")))?;
            if let Some(v) = self.const_eval(node, 0) {
                return Ok(Expr::Const(v, ScalarTy::U32));
            }
            let (e, t) = self.scalar(node)?;
            return Ok(convert(e, &t, &CType::UINT));
        }
        parse_int(o)
            .map(|v| Expr::Const(v, ScalarTy::U32))
            .ok_or_else(|| FrontError::unsupported(span, format!("asm operand `{o}` is neither a literal nor %N")))
    }
}
