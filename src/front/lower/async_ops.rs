//! Asynchronous pipelines in the source: mbarrier operations, Ampere `cp.async` with its
//! commit groups, bulk copies completing on an mbarrier, and the fences that go with them,
//! from inline PTX (as CUTLASS, ThunderKittens and libcu++'s headers write them) and from
//! Clang's `__nvvm_mbarrier_*` / `__nvvm_cp_async_*` builtins; TMA tensor loads (their box
//! bounded by the bytes their thread announces on the mbarrier, the host's tensor map being
//! unseen) and bulk stores with their bulk groups. Forms not modelled (TMA tensor stores,
//! whose box only the host's tensor map decides; multicast; cluster barriers) stop the kernel
//! naming the instruction.

use super::asm::{AsmCx, Reg};
use super::expr::Value;
use super::lowerer::Lowerer;
use super::ptx::{Class, Instr};
use super::values::*;
use crate::front::ast::NodeId;
use crate::front::ctype::CType;
use crate::front::error::{FResult, FrontError};
use autosync_oracle::ir::*;

/// Unsupported: an async instruction autosync does not model.
fn not_modelled(span: Span, opcode: &str, why: &str) -> FrontError {
    FrontError::unsupported(span, format!("inline PTX `{opcode}`: {why}"))
        .with_help("autosync models mbarriers, cp.async and cp.async.bulk into shared memory; see docs/named.md")
}

impl<'a> Lowerer<'a> {
    /// An mbarrier operand: the object an address operand names, in shared memory.
    fn mbar_ref(&mut self, addr: &str, opcode: &str, cx: &AsmCx) -> FResult<MbarRef> {
        let (array, offset, span) = self.asm_place(addr, opcode, cx)?;
        self.shared_mbar(array, offset, span, opcode)
    }

    /// The mbarrier at `offset` of `array`, which must be shared memory.
    fn shared_mbar(&self, array: ArrayId, offset: Expr, span: Span, what: &str) -> FResult<MbarRef> {
        self.require_shared(array, span, &format!("`{what}` on"))?;
        Ok(MbarRef { array, offset, span })
    }

    /// Fails unless `array` is in shared memory: "{what} `name`, which is not ...".
    pub(crate) fn require_shared(&self, array: ArrayId, span: Span, what: &str) -> FResult<()> {
        let a = &self.arrays[array.0 as usize];
        if a.space == Space::Shared {
            return Ok(());
        }
        Err(FrontError::unsupported(
            span,
            format!("{what} `{}`, which is not in shared memory", a.name),
        ))
    }

    /// A fresh variable for an asm register the operation defines.
    fn asm_def(&mut self, reg: &str, ty: ScalarTy, cx: &mut AsmCx) -> VarId {
        let v = self.temp(ty);
        match ty {
            ScalarTy::Bool => cx.regs.insert(reg.to_string(), Reg::Pred(Expr::Var(v))),
            _ => cx.regs.insert(reg.to_string(), Reg::Val(Expr::Var(v), ty)),
        };
        v
    }

    /// A 64-bit operand (mbarrier state tokens).
    pub(crate) fn asm_operand64(&mut self, o: &str, cx: &AsmCx) -> FResult<Expr> {
        if let Some(Reg::Val(e, _)) = cx.regs.get(o) {
            return Ok(e.clone());
        }
        if let Some(i) = super::asm::operand_index(o) {
            let node = *cx
                .operands
                .get(i)
                .ok_or_else(|| FrontError::input(cx.span, format!("asm operand `{o}` does not exist")))?;
            let (e, t) = self.scalar(node)?;
            return Ok(super::convert::convert(e, &t, &CType::U64));
        }
        self.asm_operand(o, cx)
    }

    /// An async-pipeline instruction of an asm statement.
    pub(crate) fn asm_async(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        if ins.guard.is_some() {
            return Err(not_modelled(
                span,
                opcode,
                "a predicated asynchronous operation is not modelled",
            ));
        }
        let segs: Vec<&str> = opcode.split('.').collect();
        let ops = &ins.operands;
        let op = |i: usize| -> FResult<&str> {
            ops.get(i)
                .map(String::as_str)
                .ok_or_else(|| FrontError::input(span, format!("`{}` has too few operands", ins.text)))
        };
        match (segs[0], segs.get(1).copied().unwrap_or("")) {
            ("mbarrier", "init") => {
                let b = self.mbar_ref(op(0)?, opcode, cx)?;
                let count = self.asm_operand(op(1)?, cx)?;
                self.ops.push(Op::Mbarrier(b, MbarOp::Init { count }));
            }
            ("mbarrier", kind @ ("arrive" | "arrive_drop")) => {
                let b = self.mbar_ref(op(1)?, opcode, cx)?;
                let expect = segs.contains(&"expect_tx");
                let third = match ops.get(2) {
                    Some(o) => Some(self.asm_operand(o, cx)?),
                    None => None,
                };
                let (count, tx) = if expect {
                    (Expr::Const(1, ScalarTy::U32), third)
                } else {
                    (third.unwrap_or(Expr::Const(1, ScalarTy::U32)), None)
                };
                let state = op(0)?;
                let token = (state != "_").then(|| self.asm_def(state, ScalarTy::U64, cx));
                self.ops.push(Op::Mbarrier(
                    b,
                    MbarOp::Arrive {
                        count,
                        tx,
                        drop: kind == "arrive_drop",
                        token,
                    },
                ));
            }
            ("mbarrier", kind @ ("expect_tx" | "complete_tx")) => {
                let b = self.mbar_ref(op(0)?, opcode, cx)?;
                let bytes = self.asm_operand(op(1)?, cx)?;
                let m = if kind == "expect_tx" {
                    MbarOp::ExpectTx { bytes }
                } else {
                    MbarOp::CompleteTx { bytes }
                };
                self.ops.push(Op::Mbarrier(b, m));
            }
            ("mbarrier", "test_wait" | "try_wait") => {
                let b = self.mbar_ref(op(1)?, opcode, cx)?;
                let phase = if segs.contains(&"parity") {
                    MbarPhase::Parity(self.asm_operand(op(2)?, cx)?)
                } else {
                    MbarPhase::Token(self.asm_operand64(op(2)?, cx)?)
                };
                let dst = self.asm_def(op(0)?, ScalarTy::Bool, cx);
                self.ops.push(Op::Mbarrier(b, MbarOp::Test { dst: Some(dst), phase }));
            }
            ("mbarrier", "inval") => {
                let b = self.mbar_ref(op(0)?, opcode, cx)?;
                self.ops.push(Op::Mbarrier(b, MbarOp::Inval));
            }
            // A function of the state token only.
            ("mbarrier", "pending_count") => {
                cx.regs.remove(op(0)?);
            }
            ("cp", "async") => self.asm_cp_async(ins, &segs, cx)?,
            ("wgmma", _) => self.asm_wgmma(ins, cx)?,
            ("fence", "mbarrier_init") => self.ops.push(Op::ProxyFence(ProxyFence::MbarrierInit)),
            ("fence", "proxy") if segs.get(2) == Some(&"async") => self.ops.push(Op::ProxyFence(ProxyFence::Async)),
            ("barrier", "cluster") => {
                return Err(not_modelled(
                    span,
                    opcode,
                    "cluster barriers synchronize several blocks; autosync checks one block",
                ))
            }
            _ => {
                return Err(not_modelled(
                    span,
                    opcode,
                    "this asynchronous operation is not modelled",
                ))
            }
        }
        Ok(())
    }

    /// `cp.async.*`: Ampere copies, commit/wait groups, arrive-on, bulk copies.
    fn asm_cp_async(&mut self, ins: &Instr, segs: &[&str], cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let ops = &ins.operands;
        let op = |i: usize| -> FResult<&str> {
            ops.get(i)
                .map(String::as_str)
                .ok_or_else(|| FrontError::input(span, format!("`{}` has too few operands", ins.text)))
        };
        match segs.get(2).copied().unwrap_or("") {
            "ca" | "cg" => {
                let size = self
                    .asm_const(op(2)?, cx)
                    .filter(|s| matches!(s, 4 | 8 | 16))
                    .ok_or_else(|| not_modelled(span, opcode, "a copy size other than 4, 8 or 16"))?;
                let copy = self.copy_places(op(0)?, op(1)?, size as u32, opcode, cx)?;
                self.ops.push(Op::AsyncCopy(AsyncCopy {
                    bytes: Some(Expr::Const(size, ScalarTy::U32)),
                    completion: AsyncCompletion::Group,
                    ..copy
                }));
            }
            "commit_group" => self.ops.push(Op::AsyncGroup(AsyncGroupOp::Commit)),
            "wait_group" => {
                let n = self
                    .asm_const(op(0)?, cx)
                    .filter(|n| *n >= 0)
                    .ok_or_else(|| not_modelled(span, opcode, "a group count that is not a constant"))?;
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Wait(n as u32)));
            }
            "wait_all" => {
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Commit));
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Wait(0)));
            }
            "mbarrier" => {
                let b = self.mbar_ref(op(0)?, opcode, cx)?;
                self.ops.push(Op::Mbarrier(
                    b,
                    MbarOp::ArriveOnCopies {
                        noinc: segs.contains(&"noinc"),
                    },
                ));
            }
            "bulk" => match segs.get(3).copied().unwrap_or("") {
                "prefetch" => {}
                "tensor" => self.asm_tensor_copy(ins, segs, cx)?,
                "commit_group" => self.ops.push(Op::AsyncGroup(AsyncGroupOp::BulkCommit)),
                "wait_group" => {
                    let n = self
                        .asm_const(op(0)?, cx)
                        .filter(|n| *n >= 0)
                        .ok_or_else(|| not_modelled(span, opcode, "a group count that is not a constant"))?;
                    let read = segs.get(4) == Some(&"read");
                    self.ops.push(Op::AsyncGroup(AsyncGroupOp::BulkWait(n as u32, read)));
                }
                "global" if segs.get(4).is_some_and(|s| s.starts_with("shared::cta")) => self.asm_bulk_store(ins, cx)?,
                dst if dst.starts_with("shared")
                    && opcode.contains("mbarrier::complete_tx::bytes")
                    && !opcode.contains("multicast") =>
                {
                    let size = self
                        .asm_const(op(2)?, cx)
                        .filter(|s| *s > 0)
                        .ok_or_else(|| not_modelled(span, opcode, "a bulk copy whose size is not a constant"))?;
                    let copy = self.copy_places(op(0)?, op(1)?, size as u32, opcode, cx)?;
                    let bar = self.mbar_ref(op(3)?, opcode, cx)?;
                    self.ops.push(Op::AsyncCopy(AsyncCopy {
                        bytes: Some(Expr::Const(size, ScalarTy::U32)),
                        completion: AsyncCompletion::Mbarrier(bar),
                        ..copy
                    }));
                }
                _ => {
                    return Err(not_modelled(
                        span,
                        opcode,
                        "bulk copies other than global/shared to shared memory completing on an mbarrier, or shared to global in a bulk group, are not modelled (multicast copies write the shared memory of several blocks of the cluster; autosync checks one block)",
                    ))
                }
            },
            _ => return Err(not_modelled(span, opcode, "this asynchronous copy is not modelled")),
        }
        Ok(())
    }

    /// The shared destination and the source of a copy of `size` bytes.
    fn copy_places(&mut self, dst: &str, src: &str, size: u32, opcode: &str, cx: &AsmCx) -> FResult<AsyncCopy> {
        let (da, doff, dspan) = self.asm_place(dst, opcode, cx)?;
        if self.arrays[da.0 as usize].space != Space::Shared {
            return Err(FrontError::unsupported(
                cx.span,
                format!(
                    "`{opcode}` into `{}`, which is not shared memory",
                    self.arrays[da.0 as usize].name
                ),
            ));
        }
        let (sa, soff, sspan) = self.asm_place(src, opcode, cx)?;
        Ok(AsyncCopy {
            dst: Access {
                array: da,
                kind: AccessKind::Write,
                offset: doff,
                size,
                span: dspan,
            },
            src: Some(Access {
                array: sa,
                kind: AccessKind::Read,
                offset: soff,
                size,
                span: sspan,
            }),
            bytes: Some(Expr::Const(size as i64, ScalarTy::U32)),
            completion: AsyncCompletion::Group,
        })
    }

    /// `cp.async.bulk.tensor.Nd.{dst}.{src}...`: a TMA load into the own block's shared memory
    /// completing on an mbarrier, its box bounded by the bytes its thread announced there
    /// (`bytes: None`: the host's tensor map, which decides it, is not seen). Its
    /// global side reads through the tensor map: unknown (`src: None`).
    fn asm_tensor_copy(&mut self, ins: &Instr, segs: &[&str], cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        let op = |i: usize| -> FResult<&str> {
            ins.operands
                .get(i)
                .map(String::as_str)
                .ok_or_else(|| FrontError::input(span, format!("`{}` has too few operands", ins.text)))
        };
        if opcode.contains("multicast") || opcode.contains("cta_group") {
            return Err(not_modelled(
                span,
                opcode,
                "a multicast (or CTA-pair) TMA copy writes the shared memory of several blocks of the cluster; autosync checks one block",
            ));
        }
        let (dst, src) = (segs.get(5).copied().unwrap_or(""), segs.get(6).copied().unwrap_or(""));
        if dst == "global" {
            return Err(not_modelled(
                span,
                opcode,
                "the box a TMA tensor store reads from shared memory is set by its tensor map on the host, which autosync does not see and no mbarrier bounds: write the store as `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], bytes` with its byte count",
            ));
        }
        if !dst.starts_with("shared") || src != "global" || !opcode.contains("mbarrier::complete_tx::bytes") {
            return Err(not_modelled(span, opcode, "this TMA tensor copy is not modelled"));
        }
        if !op(1)?.trim_start().starts_with('[') || !op(1)?.contains('{') {
            return Err(FrontError::input(
                span,
                format!("`{}`: `{}` is not a tensor map with coordinates", ins.text, op(1)?),
            ));
        }
        let (array, offset, dspan) = self.asm_place(op(0)?, opcode, cx)?;
        if self.arrays[array.0 as usize].space != Space::Shared {
            return Err(FrontError::unsupported(
                span,
                format!(
                    "`{opcode}` into `{}`, which is not shared memory of this block",
                    self.arrays[array.0 as usize].name
                ),
            ));
        }
        let bar = self.mbar_ref(op(2)?, opcode, cx)?;
        self.ops.push(Op::AsyncCopy(AsyncCopy {
            dst: Access {
                array,
                kind: AccessKind::Write,
                offset,
                size: 0,
                span: dspan,
            },
            src: None,
            bytes: None,
            completion: AsyncCompletion::Mbarrier(bar),
        }));
        Ok(())
    }

    /// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size`: a bulk store that reads
    /// its shared source until `cp.async.bulk.wait_group.read` and writes global memory.
    fn asm_bulk_store(&mut self, ins: &Instr, cx: &mut AsmCx) -> FResult<()> {
        let span = cx.span;
        let opcode = ins.opcode.as_str();
        if !opcode.contains("bulk_group") || opcode.contains("cp_mask") {
            return Err(not_modelled(span, opcode, "this bulk store is not modelled"));
        }
        let op = |i: usize| -> FResult<&str> {
            ins.operands
                .get(i)
                .map(String::as_str)
                .ok_or_else(|| FrontError::input(span, format!("`{}` has too few operands", ins.text)))
        };
        let size = self
            .asm_const(op(2)?, cx)
            .filter(|s| *s > 0 && *s % 16 == 0 && *s < 1 << 31)
            .ok_or_else(|| not_modelled(span, opcode, "a bulk store whose size is not a constant multiple of 16"))?;
        let (da, doff, dspan) = self.asm_place(op(0)?, opcode, cx)?;
        let (sa, soff, sspan) = self.asm_place(op(1)?, opcode, cx)?;
        let space = |a: ArrayId| self.arrays[a.0 as usize].space;
        if space(da) != Space::Global || space(sa) != Space::Shared {
            return Err(FrontError::unsupported(
                span,
                format!(
                    "`{opcode}` from `{}` to `{}`: a bulk store copies shared memory to global memory",
                    self.arrays[sa.0 as usize].name, self.arrays[da.0 as usize].name
                ),
            ));
        }
        let place = |array, kind, offset, span| Access {
            array,
            kind,
            offset,
            size: size as u32,
            span,
        };
        self.ops.push(Op::AsyncCopy(AsyncCopy {
            dst: place(da, AccessKind::Write, doff, dspan),
            src: Some(place(sa, AccessKind::Read, soff, sspan)),
            bytes: Some(Expr::Const(size, ScalarTy::U32)),
            completion: AsyncCompletion::BulkGroup,
        }));
        Ok(())
    }

    /// A wait loop written in PTX around one `test_wait`/`try_wait` (`L: try_wait p; @p bra D;
    /// bra L; D:` or `L: try_wait p; @!p bra L;`): whether it is one. It is when, from the
    /// start, only register computations lead to the test, and after it the test's predicate
    /// false leads back to it and true to the end, through branches and register
    /// computations only.
    pub(crate) fn ptx_wait_loop(instrs: &[Instr], classes: &[Class]) -> Option<usize> {
        let tests: Vec<usize> = (0..instrs.len())
            .filter(|&i| {
                let o = &instrs[i].opcode;
                o.starts_with("mbarrier.try_wait") || o.starts_with("mbarrier.test_wait")
            })
            .collect();
        let [t] = tests[..] else { return None };
        let pred = instrs[t].operands.first()?.clone();
        let quiet = |i: usize| matches!(classes[i], Class::Value | Class::Order | Class::Branch);
        let target = |label: &str| -> Option<usize> {
            instrs
                .iter()
                .position(|x| x.labels.iter().any(|l| l == label))
                .or((label.is_empty()).then_some(instrs.len()))
        };
        // Follows control from `pc` with the predicate `p`: where it first reaches the test or
        // the end.
        let run = |mut pc: usize, p: bool| -> Option<usize> {
            for _ in 0..64 {
                if pc == t || pc >= instrs.len() {
                    return Some(pc.min(instrs.len()));
                }
                if !quiet(pc) {
                    return None;
                }
                let x = &instrs[pc];
                if classes[pc] == Class::Branch {
                    if x.opcode != "bra" && !x.opcode.starts_with("bra.") {
                        return None;
                    }
                    let taken = match &x.guard {
                        None => true,
                        Some(g) if g.reg == pred => p != g.neg,
                        Some(_) => return None,
                    };
                    pc = if taken { target(x.operands.first()?)? } else { pc + 1 };
                } else {
                    if x.operands
                        .first()
                        .is_some_and(|d| d.split('|').any(|r| r.trim() == pred))
                    {
                        return None;
                    }
                    pc += 1;
                }
            }
            None
        };
        (run(0, false)? == t && run(t + 1, false)? == t && run(t + 1, true)? == instrs.len()).then_some(t)
    }

    /// Clang's `__nvvm_mbarrier_*` / `__nvvm_cp_async_*` builtins.
    pub(crate) fn nvvm_async(&mut self, name: &str, args: &[NodeId], rt: &CType, span: Span) -> FResult<Value> {
        let base = name.strip_suffix("_shared").unwrap_or(name);
        let arg = |i: usize| -> FResult<NodeId> {
            args.get(i)
                .copied()
                .ok_or_else(|| FrontError::input(span, format!("`{name}` needs more arguments")))
        };
        let void = Ok(Value::R(RV::Void));
        match base {
            "__nvvm_mbarrier_init" => {
                let b = self.builtin_mbar(arg(0)?, name)?;
                let count = self.scalar(arg(1)?)?.0;
                self.ops.push(Op::Mbarrier(b, MbarOp::Init { count }));
                void
            }
            "__nvvm_mbarrier_arrive"
            | "__nvvm_mbarrier_arrive_noComplete"
            | "__nvvm_mbarrier_arrive_drop"
            | "__nvvm_mbarrier_arrive_drop_noComplete" => {
                let b = self.builtin_mbar(arg(0)?, name)?;
                let count = match args.get(1) {
                    Some(&c) => self.scalar(c)?.0,
                    None => Expr::Const(1, ScalarTy::U32),
                };
                let t = self.temp(ScalarTy::U64);
                self.ops.push(Op::Mbarrier(
                    b,
                    MbarOp::Arrive {
                        count,
                        tx: None,
                        drop: base.contains("drop"),
                        token: Some(t),
                    },
                ));
                Ok(Value::R(RV::Scalar(
                    super::convert::convert(Expr::Var(t), &CType::U64, rt),
                    rt.clone(),
                )))
            }
            "__nvvm_mbarrier_test_wait" => {
                let b = self.builtin_mbar(arg(0)?, name)?;
                let (e, t) = self.scalar(arg(1)?)?;
                let state = super::convert::convert(e, &t, &CType::U64);
                let dst = self.temp(ScalarTy::Bool);
                self.ops.push(Op::Mbarrier(
                    b,
                    MbarOp::Test {
                        dst: Some(dst),
                        phase: MbarPhase::Token(state),
                    },
                ));
                Ok(Value::R(RV::Scalar(
                    super::convert::convert(Expr::Var(dst), &CType::Bool, rt),
                    rt.clone(),
                )))
            }
            "__nvvm_mbarrier_pending_count" => {
                let v = self.scalar(arg(0)?)?.0;
                Ok(Value::R(RV::Scalar(Expr::Opaque(rt.scalar(), vec![v]), rt.clone())))
            }
            "__nvvm_mbarrier_inval" => {
                let b = self.builtin_mbar(arg(0)?, name)?;
                self.ops.push(Op::Mbarrier(b, MbarOp::Inval));
                void
            }
            "__nvvm_cp_async_mbarrier_arrive" | "__nvvm_cp_async_mbarrier_arrive_noinc" => {
                let b = self.builtin_mbar(arg(0)?, name)?;
                self.ops.push(Op::Mbarrier(
                    b,
                    MbarOp::ArriveOnCopies {
                        noinc: base.ends_with("noinc"),
                    },
                ));
                void
            }
            "__nvvm_cp_async_commit_group" => {
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Commit));
                void
            }
            "__nvvm_cp_async_wait_group" => {
                let n = self.const_eval(arg(0)?, 0).filter(|n| *n >= 0).ok_or_else(|| {
                    FrontError::unsupported(span, format!("`{name}` with a count that is not a constant"))
                })?;
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Wait(n as u32)));
                void
            }
            "__nvvm_cp_async_wait_all" => {
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Commit));
                self.ops.push(Op::AsyncGroup(AsyncGroupOp::Wait(0)));
                void
            }
            _ if base.starts_with("__nvvm_cp_async_c") => {
                let size: u32 = base
                    .rsplit('_')
                    .next()
                    .and_then(|s| s.parse().ok())
                    .filter(|s| matches!(s, 4 | 8 | 16))
                    .ok_or_else(|| FrontError::unsupported(span, format!("`{name}` is not modelled")))?;
                let dp = self.pointer(arg(0)?)?;
                let sp = self.pointer(arg(1)?)?;
                for &a in args.iter().skip(2) {
                    self.scalar(a)?;
                }
                let place = |lw: &Self, p: Pointer, kind: AccessKind, sp: Span| -> FResult<Access> {
                    let Region::Array(array) = p.region else {
                        return Err(FrontError::unsupported(
                            span,
                            format!("`{name}` through {}", lw.region_name(&p.region)),
                        ));
                    };
                    Ok(Access {
                        array,
                        kind,
                        offset: p.off,
                        size,
                        span: sp,
                    })
                };
                let dst = place(self, dp, AccessKind::Write, self.span(arg(0)?))?;
                if self.arrays[dst.array.0 as usize].space != Space::Shared {
                    return Err(FrontError::unsupported(
                        span,
                        format!("`{name}` into memory that is not shared"),
                    ));
                }
                let src = place(self, sp, AccessKind::Read, self.span(arg(1)?))?;
                self.ops.push(Op::AsyncCopy(AsyncCopy {
                    dst,
                    src: Some(src),
                    bytes: Some(Expr::Const(size as i64, ScalarTy::U32)),
                    completion: AsyncCompletion::Group,
                }));
                void
            }
            _ => Err(FrontError::unsupported(span, format!("`{name}` is not modelled"))
                .with_help("autosync models the mbarrier and cp.async builtins; see docs/named.md")),
        }
    }

    /// The mbarrier a builtin's pointer argument names.
    fn builtin_mbar(&mut self, a: NodeId, name: &str) -> FResult<MbarRef> {
        let span = self.span(a);
        let p = self.pointer(a)?;
        let Region::Array(array) = p.region else {
            return Err(FrontError::unsupported(
                span,
                format!("`{name}` on {}", self.region_name(&p.region)),
            ));
        };
        self.shared_mbar(array, p.off, span, name)
    }
}
