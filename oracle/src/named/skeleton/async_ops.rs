//! Async pipelines in the warp emulation: lane masks, mbarrier operations, asynchronous
//! copies and commit groups, and spin loops on `test_wait`/`try_wait` turned into waits.

use super::super::pipeline::{AgentIdx, AsyncEv, BarIdx, PhaseSel};
use super::super::value::{Origin, Val};
use super::trace::*;
use super::warp::*;
use crate::ir::*;
use std::rc::Rc;

impl Emu<'_, '_> {
    /// Every lane of the warp.
    pub(super) fn full_mask(&self) -> u32 {
        if self.lanes.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes.len()) - 1
        }
    }

    /// A statement with async-pipeline ops: its ops in order, each over the active lanes
    /// (an async op as events, one per distinct operand set, with the lanes as their mask).
    pub(super) fn warp_basic(&mut self, s: &Stmt, ops: &[Op]) -> Result<(), Stop> {
        for op in ops {
            if op.is_async() {
                self.async_op(s, op)?;
            } else {
                for li in self.active() {
                    self.op(li, s.label, op)?;
                }
            }
        }
        Ok(())
    }

    /// Each active lane's value of a condition that decides async-pipeline ops (they may
    /// differ, but must be known).
    pub(super) fn lane_conds(&mut self, s: &Stmt, cond: &Expr) -> Result<Vec<(usize, bool)>, Stop> {
        let mut out = vec![];
        for li in self.active() {
            if let Some((span, blame)) = self.lanes[li].maybe_exit.clone() {
                return Err(self.inconclusive(span, blame.message("a return before an mbarrier operation")));
            }
            match self.eval(li, cond) {
                Val::K(v) => out.push((li, v != 0)),
                Val::S(sym) => {
                    let blame = self.unk.blame(&sym);
                    return Err(self.inconclusive(
                        s.span,
                        blame.message("a condition that controls an mbarrier or async-copy operation"),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Whether a warp-wide loop goes on: uniform for loops with barriers; for loops with only
    /// async-pipeline ops, lanes whose condition is false leave the loop (as by `break`).
    pub(super) fn loop_cond(&mut self, s: &Stmt, cond: &Expr) -> Result<bool, Stop> {
        if self.ctx.sync.contains(&s.label) {
            return Ok(self.uniform_cond(s, cond)? == Some(true));
        }
        let conds = self.lane_conds(s, cond)?;
        for &(li, c) in &conds {
            if !c {
                self.lanes[li].flow = Flow::Break;
            }
        }
        Ok(conds.iter().any(|&(_, c)| c))
    }

    /// An `if` around async-pipeline ops only: each branch runs for the lanes that take it
    /// (the others parked), as the warp executes it.
    pub(super) fn masked_if(&mut self, s: &Stmt, cond: &Expr, then_blk: &Block, else_blk: &Block) -> Result<(), Stop> {
        let conds = self.lane_conds(s, cond)?;
        for (want, blk) in [(true, then_blk), (false, else_blk)] {
            let parked: Vec<usize> = conds.iter().filter(|c| c.1 != want).map(|c| c.0).collect();
            if parked.len() == conds.len() {
                continue;
            }
            for &li in &parked {
                self.lanes[li].flow = Flow::Parked;
            }
            let r = self.warp_block(blk);
            for &li in &parked {
                self.lanes[li].flow = Flow::Normal;
            }
            r?;
        }
        Ok(())
    }

    /// A loop around mbarrier tests. It is a wait if an iteration whose tests are false has
    /// no effect and does not leave the loop, whatever earlier iterations assigned (probed
    /// with the loop's variables unknown); then it runs to its exit with each test a wait
    /// followed by true. Variables a false iteration changes are unknown afterwards.
    pub(super) fn spin_loop(&mut self, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        if runs_once(lp) && has_spin_candidate(&lp.body, &self.ctx.spin) {
            // `do { ... } while (false)` (an inlined function's body, a switch) is no spin: the
            // loops inside with the tests are judged when reached (libcu++'s wait runs its
            // polling loop inside several of them).
            return self.warp_loop(s, lp);
        }
        let active = self.active();
        let vars = assigned_vars(s);
        let entry: Vec<Vec<Val>> = active.iter().map(|&li| self.lanes[li].env.clone()).collect();
        let saved: Vec<LaneFlowState> = active
            .iter()
            .map(|&li| {
                let l = &self.lanes[li];
                (l.preds.clone(), l.maybe_exit.clone(), l.maybe_jump.clone())
            })
            .collect();
        let (prev_mode, prev_probe) = (self.test_mode, self.probe.take());
        self.test_mode = TestMode::Probe;
        self.probe = Some(Probe::default());
        let mut spins = true;
        let mut after = vec![];
        for &li in &active {
            self.havoc(li, &vars);
            spins &= self.probe_iteration(li, lp)?;
            after.push(std::mem::take(&mut self.lanes[li].env));
        }
        let probe = std::mem::replace(&mut self.probe, prev_probe).unwrap_or_default();
        self.test_mode = prev_mode;
        for (i, &li) in active.iter().enumerate() {
            let l = &mut self.lanes[li];
            l.env = entry[i].clone();
            l.flow = Flow::Normal;
            (l.preds, l.maybe_exit, l.maybe_jump) = saved[i].clone();
        }
        if !spins || probe.effect || probe.tests == 0 {
            if has_spin_candidate(&lp.body, &self.ctx.spin) {
                // Not a spin itself (a role loop around one): run as a loop, and the loops
                // inside with the tests are judged when reached.
                return self.warp_loop(s, lp);
            }
            return Err(self.inconclusive(
                s.span,
                "a loop around an mbarrier test_wait/try_wait that is not a pure spin (while the phase is incomplete it has effects or may leave the loop)".into(),
            ));
        }
        for (i, &li) in active.iter().enumerate() {
            for &v in &vars {
                if after[i][v.0 as usize] != entry[i][v.0 as usize] {
                    let var = self.ctx.k.var(v);
                    self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Var(var.name.clone()), var.ty);
                }
            }
        }
        self.test_mode = TestMode::Wait;
        let r = self.warp_loop(s, lp);
        self.test_mode = prev_mode;
        r
    }

    /// One iteration of a spin loop for lane `li`, tests false: whether it stays in the loop.
    pub(super) fn probe_iteration(&mut self, li: usize, lp: &Loop) -> Result<bool, Stop> {
        let test = |em: &mut Self| -> Result<bool, Stop> {
            for h in &lp.header {
                em.lane_stmt(li, h)?;
            }
            Ok(matches!(em.eval(li, &lp.cond), Val::K(c) if c != 0))
        };
        if lp.kind != LoopKind::DoWhile && !test(self)? {
            return Ok(false);
        }
        self.lane_block(li, &lp.body)?;
        if !matches!(self.lanes[li].flow, Flow::Normal | Flow::Continue) {
            return Ok(false);
        }
        self.lanes[li].flow = Flow::Normal;
        for h in &lp.step {
            self.lane_stmt(li, h)?;
        }
        if lp.kind == LoopKind::DoWhile && !test(self)? {
            return Ok(false);
        }
        let l = &self.lanes[li];
        Ok(l.flow == Flow::Normal && l.maybe_exit.is_none() && l.maybe_jump.is_none())
    }

    /// A known integer of one lane.
    pub(super) fn lane_int(&mut self, li: usize, e: &Expr, span: Span, what: &str) -> Result<i64, Stop> {
        match self.eval(li, e) {
            Val::K(v) => Ok(v),
            Val::S(sym) => {
                let blame = self.unk.blame(&sym);
                Err(self.inconclusive(span, blame.message(what)))
            }
        }
    }

    /// Appends an async event for the lanes of `mask`; returns its index.
    pub(super) fn push_async(&mut self, s: &Stmt, mask: u32, ev: AsyncEv) -> u32 {
        let idx = self.trace.events.len() as u32;
        self.trace.events.push(Event {
            kind: EvKind::Async,
            id: 0,
            count: 0,
            label: s.label,
            span: s.span,
            mask,
            op: Some(Rc::new(ev)),
        });
        idx
    }

    /// An async-pipeline op over the active lanes.
    pub(super) fn async_op(&mut self, s: &Stmt, op: &Op) -> Result<(), Stop> {
        let active = self.active();
        for &li in &active {
            if let Some((span, blame)) = self.lanes[li].maybe_exit.clone() {
                return Err(self.inconclusive(span, blame.message("a return before an mbarrier operation")));
            }
        }
        if active.is_empty() {
            return Ok(());
        }
        match op {
            Op::Mbarrier(b, m) => self.mbar_op(s, &active, b, m),
            Op::AsyncCopy(c) => self.async_copy(s, &active, c),
            Op::Wgmma(ops) => self.wgmma(s, &active, ops),
            Op::AsyncGroup(g) => {
                self.async_group(s, &active, *g);
                Ok(())
            }
            Op::ProxyFence(f) => {
                self.push_async(s, mask_of(&active), AsyncEv::Fence(*f));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The phase a lane's wait or test names.
    pub(super) fn phase_sel(&mut self, li: usize, p: &MbarPhase, span: Span) -> Result<PhaseSel, Stop> {
        match p {
            MbarPhase::Parity(e) => Ok(PhaseSel::Parity(
                (self.lane_int(li, e, span, "the phase parity")? & 1) as u8,
            )),
            MbarPhase::Token(e) => match self.eval(li, e) {
                Val::K(v) if v & TOKEN_TAG != 0 && ((v & !TOKEN_TAG) as usize) < self.ctx.tokens.len() => {
                    Ok(PhaseSel::Token((v & !TOKEN_TAG) as u64))
                }
                _ => Err(self.inconclusive(
                    span,
                    "a wait on an mbarrier state token autosync cannot trace to the arrive that returned it".into(),
                )),
            },
        }
    }

    /// An mbarrier operation: per lane its object and operands; lanes with equal ones share
    /// an event. A test is a wait inside a spin loop and not modelled elsewhere.
    pub(super) fn mbar_op(&mut self, s: &Stmt, active: &[usize], b: &MbarRef, m: &MbarOp) -> Result<(), Stop> {
        let mut events: Vec<(AsyncEv, u32)> = vec![];
        let mut dsts: Vec<(usize, usize)> = vec![];
        for &li in active {
            let off = self.lane_int(li, &b.offset, b.span, "the mbarrier's address")?;
            let bar = self.ctx.mbars.of(b.array, off);
            let kind = if matches!(m, MbarOp::Init { .. } | MbarOp::Inval) {
                AccessKind::Write
            } else {
                AccessKind::Atomic
            };
            let object = Access {
                array: b.array,
                kind,
                offset: b.offset.clone(),
                size: 8,
                span: b.span,
            };
            self.access(li, s.label, &object)?;
            let span = s.span;
            let ev = match m {
                MbarOp::Init { count } => AsyncEv::Init {
                    bar,
                    count: self.lane_int(li, count, span, "the mbarrier's arrival count")?,
                },
                MbarOp::Arrive { count, tx, drop, .. } => AsyncEv::Arrive {
                    bar,
                    count: self.lane_int(li, count, span, "the arrival count")?,
                    tx: match tx {
                        Some(t) => self.lane_int(li, t, span, "the expected transaction bytes")?,
                        None => 0,
                    },
                    drop: *drop,
                    token: None,
                },
                MbarOp::ExpectTx { bytes } => AsyncEv::ExpectTx {
                    bar,
                    bytes: self.lane_int(li, bytes, span, "the expected transaction bytes")?,
                },
                MbarOp::CompleteTx { bytes } => AsyncEv::CompleteTx {
                    bar,
                    bytes: self.lane_int(li, bytes, span, "the completed transaction bytes")?,
                },
                MbarOp::Test { dst, phase } => {
                    if self.test_mode != TestMode::Wait {
                        return Err(self.inconclusive(
                            span,
                            "the result of an mbarrier test_wait/try_wait is used other than to spin until it is true"
                                .into(),
                        ));
                    }
                    if let Some(d) = dst {
                        let ty = self.ctx.k.var(*d).ty;
                        self.lanes[li].env[d.0 as usize] = Val::K(ty.normalize(1));
                    }
                    AsyncEv::Wait {
                        bar,
                        phase: self.phase_sel(li, phase, span)?,
                    }
                }
                MbarOp::Wait { phase } => AsyncEv::Wait {
                    bar,
                    phase: self.phase_sel(li, phase, span)?,
                },
                MbarOp::ArriveOnCopies { noinc } => AsyncEv::ArriveOnCopies {
                    bar,
                    noinc: *noinc,
                    copies: vec![(li as u8, self.lanes[li].copies.clone())],
                },
                MbarOp::Inval => AsyncEv::Inval { bar },
            };
            match ev {
                AsyncEv::Arrive { bar, tx, .. } | AsyncEv::ExpectTx { bar, bytes: tx } => {
                    self.lanes[li].announce(bar, tx)
                }
                _ => {}
            }
            let slot = events.iter().position(|(e, _)| same_event(e, &ev));
            let gi = match slot {
                Some(i) => {
                    events[i].1 |= 1 << li;
                    if let (AsyncEv::ArriveOnCopies { copies, .. }, AsyncEv::ArriveOnCopies { copies: mine, .. }) =
                        (&mut events[i].0, ev)
                    {
                        copies.extend(mine);
                    }
                    i
                }
                None => {
                    events.push((ev, 1 << li));
                    events.len() - 1
                }
            };
            dsts.push((li, gi));
        }
        let token_var = match m {
            MbarOp::Arrive { token: Some(v), .. } => Some(*v),
            _ => None,
        };
        for (gi, (mut ev, mask)) in events.into_iter().enumerate() {
            if let (AsyncEv::Arrive { token, .. }, Some(v)) = (&mut ev, token_var) {
                let id = self.ctx.tokens.len() as u64;
                *token = Some(id);
                self.ctx.tokens.push((self.w, self.trace.events.len() as u32));
                let ty = self.ctx.k.var(v).ty;
                for &(li, g) in &dsts {
                    if g == gi {
                        self.lanes[li].env[v.0 as usize] = Val::K(ty.normalize(TOKEN_TAG | id as i64));
                    }
                }
            }
            self.push_async(s, mask, ev);
        }
        Ok(())
    }

    /// Asynchronous copies: per lane its completion (an mbarrier and bytes, or a commit
    /// group); lanes completing alike share one agent, whose accesses are the copies'. A bulk
    /// store is two agents: its reads (ended by `wait_group.read`) and its writes.
    pub(super) fn async_copy(&mut self, s: &Stmt, active: &[usize], c: &AsyncCopy) -> Result<(), Stop> {
        let mut agents: Vec<(AgentDone, u32)> = vec![];
        let mut sizes = vec![c.dst.size; self.lanes.len()];
        for &li in active {
            let done = self.copy_done(li, s, c, &mut sizes)?;
            match agents.iter_mut().find(|(d, _)| same_target(d, &done)) {
                Some((AgentDone::Mbarrier { bytes, .. }, mask)) => {
                    if let AgentDone::Mbarrier { bytes: b, .. } = done {
                        *bytes += b;
                    }
                    *mask |= 1 << li;
                }
                Some((_, mask)) => *mask |= 1 << li,
                None => agents.push((done, 1 << li)),
            }
        }
        for (done, mask) in agents {
            let lanes: Vec<usize> = (0..self.lanes.len()).filter(|l| mask & (1 << l) != 0).collect();
            if done == AgentDone::BulkGroup {
                let reads = self.copy_agent(s, done, mask, c.src.iter().collect(), &sizes)?;
                let writes = self.copy_agent(s, done, mask, vec![&c.dst], &sizes)?;
                for &li in &lanes {
                    self.lanes[li].bulk_open.push([reads, writes]);
                }
                continue;
            }
            let idx = self.copy_agent(s, done, mask, std::iter::once(&c.dst).chain(&c.src).collect(), &sizes)?;
            if done == AgentDone::Group {
                for &li in &lanes {
                    self.lanes[li].open_copies.push(idx);
                    self.lanes[li].copies.push(idx);
                }
            }
        }
        Ok(())
    }

    /// How lane `li`'s copy completes; a TMA load sized by the bytes the lane announced takes
    /// them from its budget (its size in `sizes`).
    fn copy_done(&mut self, li: usize, s: &Stmt, c: &AsyncCopy, sizes: &mut [u32]) -> Result<AgentDone, Stop> {
        let b = match &c.completion {
            AsyncCompletion::Mbarrier(b) => b,
            AsyncCompletion::Group => return Ok(AgentDone::Group),
            AsyncCompletion::BulkGroup => return Ok(AgentDone::BulkGroup),
        };
        let off = self.lane_int(li, &b.offset, b.span, "the mbarrier's address")?;
        let bar = self.ctx.mbars.of(b.array, off);
        let boxed = c.bytes.is_none();
        let budget = *self.lanes[li].budget(bar);
        let bytes = match &c.bytes {
            Some(b) => self.lane_int(li, b, s.span, "the bytes of an asynchronous copy")?,
            // The tx-count of a phase is below 2^20.
            None if budget > 0 && budget < 1 << 20 => budget,
            None => {
                return Err(self.inconclusive(
                    s.span,
                    "a TMA tensor load whose box the host's tensor map decides, with no transaction bytes its thread announced (expect_tx or arrive.expect_tx on its mbarrier, before it) left to bound it".into(),
                ))
            }
        };
        *self.lanes[li].budget(bar) -= bytes;
        if boxed {
            sizes[li] = bytes as u32;
        }
        Ok(AgentDone::Mbarrier { bar, bytes, boxed })
    }

    /// A new agent for the copies of the lanes of `mask`, with their accesses of `accs` (a
    /// write of `sizes[lane]` bytes); returns its index after pushing its issue event.
    fn copy_agent(
        &mut self,
        s: &Stmt,
        done: AgentDone,
        mask: u32,
        accs: Vec<&Access>,
        sizes: &[u32],
    ) -> Result<AgentIdx, Stop> {
        let idx = self.ctx.agents.len() as AgentIdx;
        let event = self.trace.events.len() as u32;
        let mut agent = Agent {
            warp: self.w,
            event,
            mask,
            done,
            conc: vec![],
            sym: vec![],
            label: s.label,
            span: s.span,
        };
        for li in (0..self.lanes.len()).filter(|l| mask & (1 << l) != 0) {
            for &a in &accs {
                if self.ctx.k.array(a.array).space == Space::Local {
                    continue;
                }
                let sized;
                let a = if a.kind == AccessKind::Write && a.size != sizes[li] {
                    sized = Access {
                        size: sizes[li],
                        ..a.clone()
                    };
                    &sized
                } else {
                    a
                };
                match self.lane_access(li, s.label, a, 1)? {
                    Recorded::Conc(x) => agent.conc.push(x),
                    Recorded::Sym(x) => agent.sym.push(x),
                }
            }
        }
        self.ctx.agents.push(agent);
        self.push_async(s, mask, AsyncEv::Issue { agent: idx });
        Ok(idx)
    }

    /// `cp.async.commit_group` / `wait_group n` (and their bulk counterparts) over the active
    /// lanes.
    pub(super) fn async_group(&mut self, s: &Stmt, active: &[usize], g: AsyncGroupOp) {
        let mut done = vec![];
        for &li in active {
            let lane = &mut self.lanes[li];
            let mine = match g {
                AsyncGroupOp::Commit => {
                    let open = std::mem::take(&mut lane.open_copies);
                    lane.groups.push_back(open);
                    continue;
                }
                AsyncGroupOp::BulkCommit => {
                    let open = std::mem::take(&mut lane.bulk_open);
                    let reads = open.iter().map(|x| x[0]).collect();
                    lane.bulk_groups.push_back([reads, open.iter().map(|x| x[1]).collect()]);
                    continue;
                }
                AsyncGroupOp::Wait(n) => {
                    let mut mine = vec![];
                    while lane.groups.len() > n as usize {
                        mine.extend(lane.groups.pop_front().unwrap_or_default());
                    }
                    lane.copies.retain(|a| !mine.contains(a));
                    mine
                }
                AsyncGroupOp::BulkWait(n, read) => lane.bulk_wait(n, read),
                AsyncGroupOp::WgmmaCommit => {
                    let open = std::mem::take(&mut lane.wgmma_open);
                    lane.wgmma_groups.push_back(open);
                    continue;
                }
                AsyncGroupOp::WgmmaWait(n) => {
                    let mut mine = vec![];
                    while lane.wgmma_groups.len() > n as usize {
                        mine.extend(lane.wgmma_groups.pop_front().unwrap_or_default());
                    }
                    mine
                }
            };
            if !mine.is_empty() {
                done.push((li as u8, mine));
            }
        }
        if !done.is_empty() {
            self.push_async(s, mask_of(active), AsyncEv::WaitGroup { done });
        }
    }
}

impl Lane {
    /// The lane's announced transaction bytes on `bar` not yet taken by its copies.
    fn budget(&mut self, bar: BarIdx) -> &mut i64 {
        let i = match self.tx_budget.iter().position(|x| x.0 == bar) {
            Some(i) => i,
            None => {
                self.tx_budget.push((bar, 0));
                self.tx_budget.len() - 1
            }
        };
        &mut self.tx_budget[i].1
    }

    /// `cp.async.bulk.wait_group{.read} n`: the agents of the groups but the newest `n` that
    /// this wait ends (their reads; with no `.read`, their writes too, and the groups go).
    fn bulk_wait(&mut self, n: u32, read: bool) -> Vec<AgentIdx> {
        let older = self.bulk_groups.len().saturating_sub(n as usize);
        let mut mine = vec![];
        for g in self.bulk_groups.iter_mut().take(older) {
            mine.append(&mut g[0]);
            if !read {
                mine.append(&mut g[1]);
            }
        }
        if !read {
            self.bulk_groups.drain(..older);
        }
        mine
    }

    /// Records `bytes` announced on `bar` (`expect_tx`, `arrive.expect_tx`).
    pub(super) fn announce(&mut self, bar: BarIdx, bytes: i64) {
        *self.budget(bar) += bytes;
    }
}

/// Whether two lanes' events are one (arrive-on-copies events of one object merge their
/// per-lane copies).
fn same_event(a: &AsyncEv, b: &AsyncEv) -> bool {
    match (a, b) {
        (AsyncEv::ArriveOnCopies { bar, noinc, .. }, AsyncEv::ArriveOnCopies { bar: b2, noinc: n2, .. }) => {
            bar == b2 && noinc == n2
        }
        _ => a == b,
    }
}

/// Whether two lanes' copies complete on the same target.
fn same_target(a: &AgentDone, b: &AgentDone) -> bool {
    match (a, b) {
        (AgentDone::Mbarrier { bar, .. }, AgentDone::Mbarrier { bar: b2, .. }) => bar == b2,
        (AgentDone::Group, AgentDone::Group)
        | (AgentDone::BulkGroup, AgentDone::BulkGroup)
        | (AgentDone::Wgmma, AgentDone::Wgmma) => true,
        _ => false,
    }
}
