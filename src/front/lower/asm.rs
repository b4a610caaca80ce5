//! Inline PTX: Clang's AST keeps an asm statement's operands but not its text, so the text
//! is read from the source (where its tokens are spelled) and parsed here. Every instruction
//! is modelled (barriers, memory accesses, the end of the thread's path, register values) or
//! stops the kernel naming it ([`ptx::classify`] sorts them); nothing is skipped.

use super::convert::*;
use super::lowerer::Lowerer;
use super::ptx::{self, Class, Guard, Instr};
use super::types::parse_int;
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;
use std::collections::HashMap;

/// An asm statement's template and the number of its output operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AsmText {
    /// The instruction template (string literals concatenated, escapes resolved).
    pub template: String,
    /// Output operand constraints (`=r`, `+l`, ...), in order.
    pub outputs: Vec<String>,
    /// Input operand constraints, in order.
    pub inputs: Vec<String>,
}

/// Parses the text of an asm statement: `asm volatile ("..." : outs : ins : clobbers)`.
pub(crate) fn parse_asm(text: &str) -> Result<AsmText, String> {
    let b = text.as_bytes();
    let open = text.find('(').ok_or("no `(` after asm")?;
    let close = super::source::matching_paren(b, open).ok_or("unbalanced parentheses in asm")?;
    let inner = &text[open + 1..close];
    // Split at top-level `:` (outside strings and parentheses).
    let mut sections: Vec<&str> = Vec::new();
    let (mut depth, mut start, mut i) = (0i32, 0usize, 0usize);
    let ib = inner.as_bytes();
    while i < ib.len() {
        match ib[i] {
            b'"' => {
                i += 1;
                while i < ib.len() && ib[i] != b'"' {
                    if ib[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            b':' if depth == 0 => {
                // `::` never appears at the top level of an asm statement.
                sections.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    sections.push(&inner[start..]);
    let template = string_literals(sections[0])?;
    let constraints = |s: Option<&&str>| -> Result<Vec<String>, String> {
        let Some(s) = s else { return Ok(vec![]) };
        split_top(s)
            .into_iter()
            .filter(|op| !op.trim().is_empty())
            .map(|op| {
                let op = op.trim();
                // `[name] "constraint" (expr)`.
                let op = if op.starts_with('[') {
                    op[op.find(']').map(|x| x + 1).unwrap_or(0)..].trim()
                } else {
                    op
                };
                let end = op
                    .rfind('"')
                    .ok_or_else(|| format!("operand `{op}` has no constraint"))?;
                string_literals(&op[..=end])
            })
            .collect()
    };
    Ok(AsmText {
        template,
        outputs: constraints(sections.get(1))?,
        inputs: constraints(sections.get(2))?,
    })
}

/// Splits at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0usize, 0usize);
    let mut out = Vec::new();
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// The concatenation of the string literals that make up `s` (nothing else allowed but
/// whitespace and comments).
fn string_literals(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    let mut seen = false;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                seen = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            Some(o) => out.push(o),
                            None => {}
                        },
                        c => out.push(c),
                    }
                }
            }
            c if c.is_whitespace() => {}
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            _ => {
                return Err(format!(
                    "the asm text is not made of string literals (near `{}`): a macro builds it",
                    first_line(&s[s.find(c).unwrap_or(0)..])
                ))
            }
        }
    }
    if !seen {
        return Err("asm without a string".into());
    }
    Ok(out)
}

/// The barrier form of a PTX opcode (`bar.sync` → `sync`, `barrier.cta.arrive.aligned` →
/// `arrive`, bare `bar` → `sync`), or `None` when it is not a barrier instruction.
pub(crate) fn barrier_kind(opcode: &str) -> Option<&str> {
    let mut segs = opcode.split('.');
    if !matches!(segs.next(), Some("bar" | "barrier")) {
        return None;
    }
    Some(segs.find(|s| !matches!(*s, "cta" | "aligned")).unwrap_or("sync"))
}

/// What a register named in the asm text holds, as far as autosync follows it.
#[derive(Clone, Debug)]
pub(crate) enum Reg {
    /// The address operand `%N` plus a byte offset (through `cvta`, `mov`, `cvt`, `add`).
    Addr(usize, i64),
    /// A value computed exactly, of the given type.
    Val(Expr, ScalarTy),
    /// A predicate.
    Pred(Expr),
}

/// The state of one asm statement's lowering.
pub(crate) struct AsmCx {
    /// Operand expressions: outputs first, then inputs (`%0`, `%1`, ...).
    pub operands: Vec<NodeId>,
    /// Number of output operands.
    pub n_out: usize,
    /// Registers autosync follows (`%N` operands rewritten by the asm included).
    pub regs: HashMap<String, Reg>,
    /// The statement's span.
    pub span: Span,
}

/// The thread-dependent unknown an asm output holds when autosync does not compute it (an
/// opaque value with no thread-dependent operand would read as the same in every thread).
pub(crate) fn per_thread_unknown(t: ScalarTy) -> Expr {
    Expr::Opaque(t, vec![super::library::linear_tid()])
}

/// The value of a special register (`%%laneid`, `%tid.x`); per-thread unknowns for the ones
/// that are no stable function of the thread's coordinates (`%warpid` is a physical slot).
fn special_value(name: &str) -> (Expr, ScalarTy) {
    let u = ScalarTy::U32;
    let dim = |s: &str| match s {
        "y" => Dim::Y,
        "z" => Dim::Z,
        _ => Dim::X,
    };
    let bin = |op, a: Expr, b: Expr| Expr::Bin(op, u, Box::new(a), Box::new(b));
    let k = |v: i64| Expr::Const(v, u);
    let lane = || bin(BinOp::Rem, super::library::linear_tid(), k(32));
    let (base, d) = name.split_once('.').unwrap_or((name, "x"));
    let e = match base {
        "tid" => Expr::Builtin(Builtin::ThreadIdx(dim(d))),
        "ntid" => Expr::Builtin(Builtin::BlockDim(dim(d))),
        "ctaid" => Expr::Builtin(Builtin::BlockIdx(dim(d))),
        "nctaid" => Expr::Builtin(Builtin::GridDim(dim(d))),
        // Warps are made of consecutive linear thread ids.
        "laneid" => lane(),
        "lanemask_eq" => bin(BinOp::Shl, k(1), lane()),
        "lanemask_lt" => bin(BinOp::Sub, bin(BinOp::Shl, k(1), lane()), k(1)),
        "lanemask_le" => bin(BinOp::Sub, bin(BinOp::Shl, k(2), lane()), k(1)),
        "lanemask_gt" => Expr::Un(
            UnOp::BitNot,
            u,
            Box::new(bin(BinOp::Sub, bin(BinOp::Shl, k(2), lane()), k(1))),
        ),
        "lanemask_ge" => Expr::Un(
            UnOp::BitNot,
            u,
            Box::new(bin(BinOp::Sub, bin(BinOp::Shl, k(1), lane()), k(1))),
        ),
        "clock64" | "globaltimer" => return (per_thread_unknown(ScalarTy::U64), ScalarTy::U64),
        _ => per_thread_unknown(u),
    };
    (e, u)
}

/// The scalar type of a PTX type suffix (`u32`, `s64`, `b16`); `None` for floats and others.
fn int_type(seg: &str) -> Option<ScalarTy> {
    let signed = seg.starts_with('s');
    if !seg.starts_with(['u', 's', 'b']) || seg.contains('x') {
        return None;
    }
    let bytes = ptx::type_bytes(seg).filter(|b| *b <= 8)?;
    Some(ScalarTy::Int {
        bits: (bytes * 8) as u8,
        signed,
    })
}

/// The C type of an integer scalar type.
fn ctype_of(t: ScalarTy) -> CType {
    match t {
        ScalarTy::Int { bits, signed } => CType::Int { bits, signed },
        ScalarTy::Bool => CType::Bool,
        ScalarTy::Opaque => CType::Float(32),
    }
}

/// The operand number of `%N`.
pub(crate) fn operand_index(o: &str) -> Option<usize> {
    o.strip_prefix('%').and_then(|r| r.parse().ok())
}

impl<'a> Lowerer<'a> {
    /// Lowers an asm statement. Every instruction is modelled (barriers, accesses, the end of
    /// the thread's path, register computations) or the kernel is inconclusive naming it.
    pub(crate) fn asm(&mut self, n: NodeId) -> FResult<()> {
        let span = self.span(n);
        let text = self
            .src
            .spelled_text(n)
            .ok_or_else(|| FrontError::unsupported(span, "the text of this asm statement cannot be read"))?;
        let asm = parse_asm(&text).map_err(|m| FrontError::unsupported(span, format!("inline asm: {m}")))?;
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
                    Class::Barrier | Class::WarpSync | Class::Memory | Class::PathEnd | Class::Async
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
                    match &ins.guard {
                        None => {
                            self.push_synthetic(StmtKind::Return);
                            // The rest of the asm never runs.
                            return Ok(());
                        }
                        Some(g) => {
                            let cond = guard_cond(g, &cx);
                            let then = self.sub_block(|lw| {
                                lw.push_synthetic(StmtKind::Return);
                                Ok(())
                            })?;
                            self.synthetic_if(cond, then);
                        }
                    }
                }
                // Memory ordering without synchronization removes no race; a prefetch changes
                // no value; a branch with no effect around it changes only registers.
                Class::Order | Class::Prefetch | Class::Branch => {}
                Class::Value => self.asm_value(ins, &mut cx, branches)?,
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

    /// A wait loop written in PTX around test `ins`: a wait on its phase.
    fn asm_wait(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
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
    fn asm_barrier(&mut self, ins: &Instr, class: Class, cx: &mut AsmCx) -> FResult<()> {
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

    /// A register computation: follows moves of special registers, operands and immediates,
    /// address arithmetic, `setp` and `elect.sync`; anything else leaves its destination
    /// unknown. Under a guard or with branches in the asm, nothing is followed.
    fn asm_value(&mut self, ins: &Instr, cx: &mut AsmCx, branches: bool) -> FResult<()> {
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

    /// A PTX memory instruction: `ld`/`ldu` reads, `st` writes, `atom`/`red` atomics, of the
    /// width its type and vector suffixes give, at the address its `[%N+imm]` operand (or a
    /// register the asm made from one) names.
    fn asm_memory(&mut self, ins: &Instr, cx: &AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let segs: Vec<&str> = opcode.split('.').collect();
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
    fn asm_address(&mut self, n: NodeId, span: Span) -> FResult<Pointer> {
        let ast = self.ast;
        match ast.kind(n) {
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXReinterpretCastExpr"
            | "ParenExpr"
            | "CXXFunctionalCastExpr"
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
            "CallExpr" => {
                let name = self
                    .expr_children(n)
                    .first()
                    .and_then(|&c| {
                        let mut c = c;
                        while ast.kind(c) == "ImplicitCastExpr" {
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
            "BinaryOperator" if !self.type_of(n).is_pointer() => {
                let op = ast.node(n).attrs.opcode.map(|o| ast.str(o)).unwrap_or("");
                let kids = self.expr_children(n);
                let [l, r] = kids[..] else { return self.pointer(n) };
                if matches!(op, "+" | "-") && self.derived_from_pointer(l) {
                    let p = self.asm_address(l, span)?;
                    let (e, t) = self.scalar(r)?;
                    let mut d = convert(e, &t, &CType::U64);
                    if op == "-" {
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
    fn derived_from_pointer(&self, n: NodeId) -> bool {
        let ast = self.ast;
        if self.type_of(n).is_pointer() {
            return true;
        }
        match ast.kind(n) {
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXReinterpretCastExpr"
            | "ParenExpr"
            | "CXXFunctionalCastExpr" => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            "BinaryOperator" => self
                .expr_children(n)
                .first()
                .is_some_and(|&c| self.derived_from_pointer(c)),
            "DeclRefExpr" => ast
                .node(n)
                .attrs
                .referenced
                .is_some_and(|r| matches!(self.env.get(&r.id), Some(Binding::Ptr(_)))),
            "CallExpr" => {
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

/// The condition a guard `@p` / `@!p` stands for: the predicate when the asm computed it from
/// known values, else an unknown (the instruction may or may not run).
fn guard_cond(g: &Guard, cx: &AsmCx) -> Expr {
    let p = match cx.regs.get(&g.reg) {
        Some(Reg::Pred(e)) => e.clone(),
        _ => per_thread_unknown(ScalarTy::Bool),
    };
    if g.neg {
        Expr::Un(UnOp::Not, ScalarTy::Bool, Box::new(p))
    } else {
        p
    }
}

/// `a op b` at type `ty`.
fn bin(op: BinOp, ty: ScalarTy, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, ty, Box::new(a), Box::new(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_asm_text() {
        let a = parse_asm(r#"asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory")"#).unwrap();
        assert_eq!(a.template, "bar.sync %0, %1;");
        assert!(a.outputs.is_empty());
        assert_eq!(a.inputs, vec!["r", "r"]);
        let a = parse_asm("asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane))").unwrap();
        assert_eq!(a.template, "mov.u32 %0, %%laneid;");
        assert_eq!(a.outputs, vec!["=r"]);
        let a = parse_asm("asm volatile(\"ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];\" : \"=f\"(a), \"=f\"(b), \"=f\"(c), \"=f\"(d) : \"l\"(p + (i * 4)))").unwrap();
        assert_eq!(a.outputs.len(), 4);
        assert_eq!(a.inputs, vec!["l"]);
        assert!(parse_asm("asm(BAR_TEXT :: \"r\"(x))").is_err());
        assert_eq!(barrier_kind("barrier.cta.arrive.aligned"), Some("arrive"));
        assert_eq!(barrier_kind("bar"), Some("sync"));
        assert_eq!(barrier_kind("mov.u32"), None);
    }
}
