//! Lane-by-lane execution of statements without barriers: symbolic branches become path
//! predicates, loops run per lane (or are abstracted by havocking what they assign), and
//! accesses are recorded with concrete or symbolic offsets.

use super::super::value::{Blame, Origin, Sym, Val};
use super::trace::*;
use super::warp::*;
use crate::ir::*;
use std::rc::Rc;

impl Emu<'_, '_> {
    pub(super) fn lane_block(&mut self, li: usize, b: &Block) -> Result<(), Stop> {
        for s in &b.stmts {
            if self.lanes[li].flow != Flow::Normal {
                break;
            }
            self.lane_stmt(li, s)?;
        }
        Ok(())
    }

    pub(super) fn lane_stmt(&mut self, li: usize, s: &Stmt) -> Result<(), Stop> {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    self.op(li, s.label, op)?;
                }
                Ok(())
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => match self.eval(li, cond) {
                Val::K(v) => self.lane_block(li, if v != 0 { then_blk } else { else_blk }),
                Val::S(c) => self.symbolic_if(li, s, c, then_blk, else_blk),
            },
            StmtKind::Loop(lp) => self.lane_loop(li, s, lp),
            StmtKind::Break => {
                self.lanes[li].flow = Flow::Break;
                Ok(())
            }
            StmtKind::Continue => {
                self.lanes[li].flow = Flow::Continue;
                Ok(())
            }
            StmtKind::Return { .. } => {
                self.lanes[li].flow = Flow::Return;
                Ok(())
            }
            StmtKind::Barrier(..) => {
                if let Some(p) = &mut self.probe {
                    p.effect = true;
                }
                Ok(())
            }
            StmtKind::Assume(e) => {
                self.assume(li, e);
                Ok(())
            }
        }
    }

    /// An assumption at the kernel's entry about parameters alone (not under a branch) is a
    /// fact of every query; any other changes nothing (it only narrows what is checked).
    fn assume(&mut self, li: usize, e: &Expr) {
        let Val::S(s) = self.eval(li, e) else { return };
        let mut uniform = self.lanes[li].preds.is_empty();
        s.for_each_unknown(&mut |n| uniform &= matches!(self.unk.info[n as usize].0, Origin::Param(_)));
        if uniform && !self.ctx.facts.contains(&s) {
            self.ctx.facts.push(s);
        }
    }

    pub(super) fn push_pred(&mut self, li: usize, p: Rc<Sym>) {
        let l = &mut self.lanes[li];
        let p = match l.preds.last() {
            Some(top) => Rc::new(Sym::Bin(BinOp::And, ScalarTy::Bool, top.clone(), p)),
            None => p,
        };
        l.preds.push(p);
    }

    /// Both branches under their path predicates; variables merged with `select`.
    pub(super) fn symbolic_if(
        &mut self,
        li: usize,
        s: &Stmt,
        c: Rc<Sym>,
        then_blk: &Block,
        else_blk: &Block,
    ) -> Result<(), Stop> {
        let c = if c.ty() == ScalarTy::Bool {
            c
        } else {
            Rc::new(Sym::Cast(ScalarTy::Bool, c))
        };
        let saved = self.lanes[li].env.clone();
        self.push_pred(li, c.clone());
        self.lane_block(li, then_blk)?;
        self.lanes[li].preds.pop();
        let then_env = std::mem::replace(&mut self.lanes[li].env, saved);
        let then_flow = std::mem::replace(&mut self.lanes[li].flow, Flow::Normal);
        self.push_pred(li, Rc::new(Sym::Un(UnOp::Not, ScalarTy::Bool, c.clone())));
        self.lane_block(li, else_blk)?;
        self.lanes[li].preds.pop();
        let else_flow = self.lanes[li].flow;
        let probing = self.test_mode == TestMode::Probe;
        let k = self.ctx.k;
        let lane = &mut self.lanes[li];
        for (i, t) in then_env.into_iter().enumerate() {
            if t != lane.env[i] {
                let ty = k.vars[i].ty;
                lane.env[i] = Val::S(Rc::new(Sym::Select(c.clone(), t.term(ty), lane.env[i].term(ty))));
            }
        }
        if then_flow != else_flow {
            lane.flow = Flow::Normal;
            let blame = self.unk.blame(&c);
            for f in [then_flow, else_flow] {
                match f {
                    Flow::Return => lane.maybe_exit = Some((s.span, blame.clone())),
                    // Probing a spin loop, a path that may start the next iteration early is
                    // followed through the rest of this one instead: more paths for the probe
                    // to find an effect or an exit in (libcu++ polls 16 times before it backs
                    // off, `if (count < 16) { ++count; continue; }`).
                    Flow::Continue if probing => {}
                    Flow::Break | Flow::Continue => lane.maybe_jump = Some((s.span, blame.clone())),
                    Flow::Normal | Flow::Parked => {}
                }
            }
        }
        Ok(())
    }

    pub(super) fn lane_loop(&mut self, li: usize, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        let outer_jump = self.lanes[li].maybe_jump.take();
        let mut first = true;
        let mut iters = 0u64;
        loop {
            if !(first && lp.kind == LoopKind::DoWhile) {
                for h in &lp.header {
                    self.lane_stmt(li, h)?;
                }
                match self.eval(li, &lp.cond) {
                    Val::K(0) => break,
                    Val::K(_) => {}
                    Val::S(_) => {
                        self.abstract_loop(li, s, lp)?;
                        break;
                    }
                }
            }
            first = false;
            if iters >= MAX_LANE_ITERS {
                self.abstract_loop(li, s, lp)?;
                break;
            }
            iters += 1;
            self.lane_block(li, &lp.body)?;
            let lane = &mut self.lanes[li];
            match lane.flow {
                Flow::Break => {
                    lane.flow = Flow::Normal;
                    break;
                }
                Flow::Return => break,
                Flow::Continue => lane.flow = Flow::Normal,
                Flow::Normal | Flow::Parked => {}
            }
            if lane.maybe_jump.is_some() {
                // Some path left this iteration early: the concrete unrolling no longer
                // follows every path, so summarize the remaining iterations.
                self.abstract_loop(li, s, lp)?;
                break;
            }
            for h in &lp.step {
                self.lane_stmt(li, h)?;
            }
        }
        self.lanes[li].maybe_jump = outer_jump;
        Ok(())
    }

    /// Havocs the loop's variables and runs one generic iteration under the loop guard: its
    /// accesses stand for those of every remaining iteration.
    pub(super) fn abstract_loop(&mut self, li: usize, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        let vars = match self.ctx.loops.get(&s.label) {
            Some(v) => v.clone(),
            None => {
                let v = Rc::new(assigned_vars(s));
                self.ctx.loops.insert(s.label, v.clone());
                v
            }
        };
        self.havoc(li, &vars);
        for h in &lp.header {
            self.lane_stmt(li, h)?;
        }
        self.lanes[li].flow = Flow::Normal;
        let c = self.eval(li, &lp.cond);
        if c != Val::K(0) {
            let pushed = if let Val::S(c) = c {
                let c = if c.ty() == ScalarTy::Bool {
                    c
                } else {
                    Rc::new(Sym::Cast(ScalarTy::Bool, c))
                };
                self.push_pred(li, c);
                true
            } else {
                false
            };
            self.lane_block(li, &lp.body)?;
            if self.lanes[li].flow == Flow::Return {
                self.lanes[li].maybe_exit = Some((s.span, Blame::Other("the trip count of a loop".into())));
            }
            self.lanes[li].flow = Flow::Normal;
            for h in &lp.step {
                self.lane_stmt(li, h)?;
            }
            self.lanes[li].flow = Flow::Normal;
            if pushed {
                self.lanes[li].preds.pop();
            }
        }
        self.lanes[li].maybe_jump = None;
        self.havoc(li, &vars);
        Ok(())
    }

    pub(super) fn havoc(&mut self, li: usize, vars: &[VarId]) {
        for &v in vars {
            let var = self.ctx.k.var(v);
            self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Var(var.name.clone()), var.ty);
        }
    }

    pub(super) fn op(&mut self, li: usize, label: Label, op: &Op) -> Result<(), Stop> {
        match op {
            Op::Assign(v, e) => {
                let ty = self.ctx.k.var(*v).ty;
                let x = match self.eval(li, e) {
                    Val::K(x) => Val::K(ty.normalize(x)),
                    s => s,
                };
                self.lanes[li].env[v.0 as usize] = x;
            }
            Op::Read(dst, a) | Op::Atomic(dst, a, _) => {
                self.access(li, label, a)?;
                if let Some(v) = dst {
                    let name = self.ctx.k.array(a.array).name.clone();
                    let ty = self.ctx.k.var(*v).ty;
                    self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Read(name), ty);
                }
            }
            Op::Write(a, _) => self.access(li, label, a)?,
            Op::Mbarrier(_, MbarOp::Test { dst, .. }) if self.probe.is_some() => {
                if let Some(p) = &mut self.probe {
                    p.tests += 1;
                }
                if let Some(d) = dst {
                    self.lanes[li].env[d.0 as usize] = Val::K(0);
                }
            }
            Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::Wgmma(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {
                match &mut self.probe {
                    Some(p) => p.effect = true,
                    None => {
                        let span = self.ctx.k.span;
                        return Err(self.inconclusive(span, "internal: an async-pipeline op run lane by lane".into()));
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn access(&mut self, li: usize, label: Label, a: &Access) -> Result<(), Stop> {
        if self.ctx.k.array(a.array).space == Space::Local {
            return Ok(());
        }
        if let Some(p) = &mut self.probe {
            p.effect = true;
            return Ok(());
        }
        let seg = self.trace.events.len() as u32;
        match self.lane_access(li, label, a, seg)? {
            Recorded::Conc(c) => self.trace.conc.push(c),
            Recorded::Sym(x) => self.trace.sym.push(x),
        }
        Ok(())
    }

    /// One lane's access as the trace records it, in segment `seg`.
    pub(super) fn lane_access(&mut self, li: usize, label: Label, a: &Access, seg: u32) -> Result<Recorded, Stop> {
        self.ctx.accesses += 1;
        if self.ctx.accesses > MAX_ACCESSES {
            return Err(self.inconclusive(
                a.span,
                format!("the emulation exceeds {MAX_ACCESSES} memory accesses; give smaller parameters"),
            ));
        }
        let offset = self.eval(li, &a.offset);
        self.record_at(li, label, a, offset, seg)
    }

    /// Records lane `li`'s access `a` at byte `offset` (in place of `a.offset`'s value).
    pub(super) fn record_at(
        &mut self,
        li: usize,
        label: Label,
        a: &Access,
        offset: Val,
        seg: u32,
    ) -> Result<Recorded, Stop> {
        let pred = self.lanes[li].preds.last().cloned();
        Ok(match (&offset, &pred) {
            (Val::K(o), None) => Recorded::Conc(ConcAccess {
                offset: *o,
                label: label.0,
                array: a.array.0,
                seg,
                size: a.size,
                lane: li as u8,
                kind: a.kind,
            }),
            _ => Recorded::Sym(SymAccess {
                label,
                array: a.array,
                kind: a.kind,
                size: a.size,
                seg,
                lane: li as u8,
                offset,
                pred,
            }),
        })
    }
}
