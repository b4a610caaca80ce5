//! The warp-scheduling executor's machine: every thread of one block with its own program
//! counter and vector clock, run in segments (up to and including one synchronization op) by
//! warps, single lanes or asynchronous copies as a [`Schedule`] picks them. Barrier
//! generations and mbarrier phases form as the threads reach them; a wait acquires the clock
//! of what it observed, and an access races with every earlier conflicting access its clock
//! does not cover.

use super::clock::{AccessSite, Agent, Clock, History};
use super::config::{ExecConfig, ExecError};
use super::eval::{initial_values, var_of, Env, Geometry, Val, WARP_SIZE};
use super::findings::{WarpDefect, WarpRace, WarpReport};
use super::memory::Memory;
use super::program::{Instr, Program, Step};
use super::proxy::ProxyHistory;
use super::schedule::{Picker, Schedule, Unit};
use super::sync::{BarKey, Generation, Mbar, Want};
use super::value::cast;
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Largest access or copy, in bytes, the executor simulates.
const MAX_ACCESS_BYTES: u32 = 1 << 16;

/// An mbarrier: the array it lives in and its byte offset.
pub type MbarKey = (ArrayId, u64);

/// Why a thread is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// In a barrier generation (released by its completion).
    Bar,
    /// Waiting for an mbarrier phase.
    Mbar(MbarKey, Want),
    /// `cp.async.wait_group n` (`true`: `cp.async.bulk.wait_group n`).
    Group(u32, bool),
}

/// Where a thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Can run.
    Ready,
    /// Waiting (at the statement in `Thread::at`).
    Blocked(Blocked),
    /// Exited.
    Done,
}

/// One thread of the block.
#[derive(Debug)]
pub struct Thread {
    pub geo: Geometry,
    /// Linear thread id.
    pub lin: u32,
    pub vars: Vec<Option<u64>>,
    pub pc: usize,
    pub state: State,
    pub clock: Clock,
    /// The statement it waits at.
    pub at: Label,
    /// The progress count when it last failed an mbarrier test and came back to test again:
    /// it can only pass once something else happened.
    pub polled: Option<u64>,
    /// Its `cp.async` copies (by copy index) not committed yet.
    pub uncommitted: Vec<usize>,
    /// Its committed groups, oldest first.
    pub groups: Vec<Vec<usize>>,
    /// Its bulk stores not committed yet, and its committed bulk groups (oldest first).
    pub bulk_uncommitted: Vec<usize>,
    pub bulk_groups: Vec<Vec<usize>>,
    /// Per mbarrier, the transaction bytes it announced there that its copies did not take yet
    /// (what sizes a TMA load whose box the host decides: `bytes: None`).
    pub tx_budget: BTreeMap<MbarKey, i64>,
}

/// An asynchronous copy in flight: an agent of its own, from its issue to its landing.
#[derive(Debug)]
pub struct InFlight<'k> {
    pub issuer: usize,
    pub label: Label,
    pub op: &'k AsyncCopy,
    /// Destination and source byte offsets.
    pub dst: u64,
    pub src: Option<u64>,
    /// Transaction bytes it completes on its mbarrier (`None`: a commit-group copy).
    pub mbar: Option<(MbarKey, i64)>,
    /// Bytes it writes (its `dst.size`, or its budget for a TMA load with `bytes: None`).
    pub size: u32,
    pub clock: Clock,
    pub landed: bool,
}

/// A `cp.async.mbarrier.arrive`: an arrival on `key` once `copies` (the `cp.async` copies its
/// thread issued before it) have landed, releasing the thread's clock at the arrive and theirs.
#[derive(Debug)]
pub struct Deferred {
    pub key: MbarKey,
    pub label: Label,
    pub copies: Vec<usize>,
    pub clock: Clock,
}

/// One block under one schedule.
pub struct Machine<'k> {
    pub k: &'k Kernel,
    pub cfg: &'k ExecConfig,
    prog: Program<'k>,
    pub threads: Vec<Thread>,
    pub copies: Vec<InFlight<'k>>,
    shared: Memory,
    global: Memory,
    local: Memory,
    history: History,
    /// Generic writes of shared memory and their proxy fences.
    pub proxy: ProxyHistory,
    bars: BTreeMap<BarKey, Generation>,
    pub mbars: BTreeMap<MbarKey, Mbar>,
    /// `cp.async.mbarrier.arrive`s waiting for their thread's copies to land.
    pub deferred: Vec<Deferred>,
    pub report: WarpReport,
    /// Counts events that may unblock a polling thread.
    pub progress: u64,
}

impl<'k> Machine<'k> {
    /// Block 0 of `cfg`'s launch, every thread at the start.
    pub fn new(k: &'k Kernel, cfg: &'k ExecConfig) -> Machine<'k> {
        let initial = initial_values(k, cfg);
        let [bx, by, bz] = cfg.block_dim;
        let mut threads = Vec::new();
        for (z, y, x) in (0..bz).flat_map(|z| (0..by).flat_map(move |y| (0..bx).map(move |x| (z, y, x)))) {
            let lin = threads.len() as u32;
            threads.push(Thread {
                geo: Geometry {
                    thread: [x, y, z],
                    block: [0; 3],
                    block_dim: cfg.block_dim,
                    grid_dim: cfg.grid_dim,
                },
                lin,
                vars: initial.clone(),
                pc: 0,
                state: State::Ready,
                clock: Clock::start(lin),
                at: k.body.label,
                polled: None,
                uncommitted: Vec::new(),
                groups: Vec::new(),
                bulk_uncommitted: Vec::new(),
                bulk_groups: Vec::new(),
                tx_budget: BTreeMap::new(),
            });
        }
        Machine {
            k,
            cfg,
            prog: Program::new(&k.body),
            threads,
            copies: Vec::new(),
            shared: Memory::new(2),
            global: Memory::new(1),
            local: Memory::new(3),
            history: History::default(),
            proxy: ProxyHistory::default(),
            bars: BTreeMap::new(),
            mbars: BTreeMap::new(),
            deferred: Vec::new(),
            report: WarpReport::default(),
            progress: 0,
        }
    }

    /// Runs the block to its end (or a deadlock) under `schedule`.
    pub fn run(mut self, schedule: Schedule) -> Result<WarpReport, ExecError> {
        let mut picker = Picker::new(schedule);
        loop {
            let ready = self.ready_units();
            let Some(unit) = picker.pick(&ready, |w| self.runnable_lanes(w)) else {
                break;
            };
            match unit {
                Unit::Warp(w) => {
                    let mut lanes = self.runnable_lanes(w);
                    if picker.lanes_reversed() {
                        lanes.reverse();
                    }
                    for t in lanes {
                        if self.runnable(t) {
                            self.segment(t)?;
                        }
                    }
                }
                Unit::Lane(t) => self.segment(t)?,
                Unit::Copy(c) => self.land(c)?,
            }
        }
        self.finish();
        Ok(self.report)
    }

    /// Warps with a runnable lane, then copies in flight.
    fn ready_units(&self) -> Vec<Unit> {
        let warps = self.threads.len().div_ceil(WARP_SIZE as usize) as u32;
        let mut ready: Vec<Unit> = (0..warps)
            .filter(|&w| !self.runnable_lanes(w).is_empty())
            .map(Unit::Warp)
            .collect();
        ready.extend(
            (0..self.copies.len())
                .filter(|&c| !self.copies[c].landed)
                .map(Unit::Copy),
        );
        ready
    }

    fn lanes(&self, w: u32) -> std::ops::Range<usize> {
        let lo = (w * WARP_SIZE) as usize;
        lo..(lo + WARP_SIZE as usize).min(self.threads.len())
    }

    fn runnable_lanes(&self, w: u32) -> Vec<usize> {
        self.lanes(w).filter(|&t| self.runnable(t)).collect()
    }

    fn runnable(&self, t: usize) -> bool {
        let th = &self.threads[t];
        match th.state {
            State::Ready => th.polled != Some(self.progress),
            State::Done | State::Blocked(Blocked::Bar) => false,
            State::Blocked(Blocked::Mbar(key, want)) => self.mbars.get(&key).is_some_and(|m| m.passes(want).is_some()),
            State::Blocked(Blocked::Group(n, bulk)) => self.groups_landed(t, n, bulk),
        }
    }

    /// Deadlock when threads are left; transaction counts left over.
    fn finish(&mut self) {
        let waits: BTreeSet<(u32, Label)> = self
            .threads
            .iter()
            .filter(|t| t.state != State::Done)
            .map(|t| (t.lin / WARP_SIZE, t.at))
            .collect();
        if !waits.is_empty() {
            self.defect(WarpDefect::Deadlock(waits.into_iter().collect()));
        }
        let unbalanced: Vec<Label> = self
            .mbars
            .values()
            .filter(|m| m.tx != 0)
            .filter_map(|m| m.init.map(|i| i.label))
            .collect();
        for l in unbalanced {
            self.defect(WarpDefect::TxMismatch(l));
        }
    }

    /// Records a defect.
    pub fn defect(&mut self, d: WarpDefect) {
        self.report.defects.entry(d).or_insert(0);
    }

    fn tick(&mut self) -> Result<(), ExecError> {
        self.report.steps += 1;
        if self.report.steps > self.cfg.max_steps {
            return Err(ExecError::StepLimit);
        }
        Ok(())
    }

    /// Evaluates `e` in thread `t` at `label`.
    pub fn eval(&self, t: usize, label: Label, e: &Expr) -> Result<Val, ExecError> {
        let th = &self.threads[t];
        Env {
            k: self.k,
            vars: &th.vars,
            geo: &th.geo,
            label,
        }
        .eval(e)
    }

    /// Gives `v` the value `bits` of type `from`, converted to `v`'s type.
    pub fn set(&mut self, t: usize, v: VarId, from: ScalarTy, bits: u64) -> Result<(), ExecError> {
        let ty = var_of(self.k, v)?.ty;
        self.threads[t].vars[v.0 as usize] = Some(cast(from, ty, bits));
        Ok(())
    }

    /// Runs thread `t` through one segment: up to and including its next synchronization
    /// op, or until it blocks or exits.
    fn segment(&mut self, t: usize) -> Result<(), ExecError> {
        self.resume(t);
        let (mut did_sync, mut failed_test) = (false, false);
        while self.threads[t].state == State::Ready {
            let pc = self.threads[t].pc;
            let Some(&step) = self.prog.steps.get(pc) else {
                self.exit(t);
                break;
            };
            let sync = is_sync(step.instr);
            if sync && did_sync {
                if failed_test && is_test(step.instr) {
                    self.threads[t].polled = Some(self.progress);
                    self.threads[t].at = step.label;
                }
                break;
            }
            self.tick()?;
            did_sync |= sync;
            self.threads[t].pc = pc + 1;
            match step.instr {
                Instr::Op(op) if op.is_async() => {
                    if self.async_op(t, step, op)? {
                        self.progress += 1;
                    } else {
                        failed_test = true;
                    }
                }
                Instr::Op(op) => self.plain_op(t, step.label, op)?,
                Instr::BranchUnless(cond, target) => {
                    if !self.eval(t, step.label, cond)?.truth() {
                        self.threads[t].pc = target;
                    }
                }
                Instr::Jump(target) => self.threads[t].pc = target,
                Instr::Barrier(b) => {
                    self.progress += 1;
                    self.barrier(t, step, b)?;
                }
                Instr::Assume(e) => {
                    if !self.eval(t, step.label, e)?.truth() {
                        self.exit(t);
                    }
                }
                Instr::Exit => self.exit(t),
            }
        }
        Ok(())
    }

    /// A blocked thread whose wait passes now acquires what it observed and runs on.
    pub fn resume(&mut self, t: usize) {
        let observed = match self.threads[t].state {
            State::Blocked(Blocked::Mbar(key, want)) => self.mbars.get(&key).and_then(|m| m.passes(want)),
            State::Blocked(Blocked::Group(n, bulk)) if self.groups_landed(t, n, bulk) => {
                Some(self.landed_clock(t, n, bulk))
            }
            _ => None,
        };
        if let Some(c) = observed {
            let th = &mut self.threads[t];
            th.clock.join(&c);
            th.state = State::Ready;
            self.progress += 1;
        }
    }

    /// Thread `t` exits: barriers of every live thread may now complete without it.
    fn exit(&mut self, t: usize) {
        self.threads[t].state = State::Done;
        self.threads[t].at = self
            .prog
            .steps
            .get(self.threads[t].pc)
            .map_or(self.k.body.label, |s| s.label);
        self.progress += 1;
        let keys: Vec<BarKey> = self.bars.keys().copied().collect();
        for key in keys {
            self.try_release(key);
        }
    }

    fn plain_op(&mut self, t: usize, label: Label, op: &Op) -> Result<(), ExecError> {
        match op {
            Op::Assign(_, Expr::Vote(..)) => {
                return Err(ExecError::Unsupported(format!(
                    "a block-wide vote at label {} in the warp-scheduling executor",
                    label.0
                )))
            }
            Op::Assign(v, e) => {
                let x = self.eval(t, label, e)?;
                self.set(t, *v, x.ty, x.bits)?;
            }
            Op::Read(dst, acc) => {
                let (space, addr) = self.access(t as Agent, label, acc, acc.size)?;
                let raw = self.load(space, t, acc.array, addr, acc.size);
                if let Some(v) = dst {
                    self.set(t, *v, ScalarTy::U64, raw)?;
                }
            }
            Op::Write(acc, e) => {
                let x = self.eval(t, label, e)?.bits;
                let (space, addr) = self.access(t as Agent, label, acc, acc.size)?;
                self.store(space, t, acc.array, addr, acc.size, x);
            }
            Op::Atomic(dst, acc, op) => {
                let step = match op {
                    AtomicOp::Increment(c) => *c,
                    AtomicOp::Other => 1,
                };
                let (space, addr) = self.access(t as Agent, label, acc, acc.size)?;
                let old = self.load(space, t, acc.array, addr, acc.size);
                self.store(space, t, acc.array, addr, acc.size, old.wrapping_add(step));
                if let Some(v) = dst {
                    self.set(t, *v, ScalarTy::U64, old)?;
                }
            }
            _ => unreachable!("async ops are run by async_op"),
        }
        Ok(())
    }

    /// The space of `array`, or an error for an array the kernel does not define.
    pub fn space(&self, array: ArrayId) -> Result<Space, ExecError> {
        self.k
            .arrays
            .get(array.0 as usize)
            .map(|a| a.space)
            .ok_or_else(|| ExecError::Malformed(format!("unknown array {}", array.0)))
    }

    /// Evaluates the offset of `acc` in thread `t` and records `size` bytes of it for `agent`.
    fn access(&mut self, agent: Agent, label: Label, acc: &Access, size: u32) -> Result<(Space, u64), ExecError> {
        let t = self.thread_of(agent);
        let addr = self.eval(t, label, &acc.offset)?.bits;
        let space = self.record(agent, label, acc, addr, size)?;
        Ok((space, addr))
    }

    /// The thread behind an agent (a copy's issuer).
    pub fn thread_of(&self, agent: Agent) -> usize {
        let n = self.threads.len();
        match (agent as usize).checked_sub(n) {
            Some(c) => self.copies[c].issuer,
            None => agent as usize,
        }
    }

    /// Records `size` bytes of `acc` at `addr` accessed by `agent` (nothing for local memory).
    pub fn record(
        &mut self,
        agent: Agent,
        label: Label,
        acc: &Access,
        addr: u64,
        size: u32,
    ) -> Result<Space, ExecError> {
        let space = self.space(acc.array)?;
        if size > MAX_ACCESS_BYTES {
            return Err(ExecError::Unsupported(format!(
                "access of {size} bytes at label {label:?}"
            )));
        }
        if space == Space::Local {
            return Ok(space);
        }
        let n = self.threads.len();
        let clock = match (agent as usize).checked_sub(n) {
            Some(c) => &self.copies[c].clock,
            None => &self.threads[agent as usize].clock,
        };
        let site = AccessSite {
            label,
            span: acc.span,
            kind: acc.kind,
        };
        let (copies, races) = (&self.copies, &mut self.report.races);
        let who = |a: Agent| match (a as usize).checked_sub(n) {
            Some(c) => (copies[c].issuer as u32, true),
            None => (a, false),
        };
        for i in 0..size as u64 {
            let key = (acc.array, addr.wrapping_add(i));
            if space == Space::Shared && acc.kind != AccessKind::Read {
                match (agent as usize).checked_sub(n) {
                    None => self.proxy.write(key, agent, clock.get(agent), label),
                    Some(_) => self.proxy.overwrite(key),
                }
            }
            self.history.record(key, agent, clock, site, &mut |r| {
                let (l1, l2) = (r.earlier.label, r.later.label);
                let ((t1, c1), (t2, c2)) = (who(r.agents[0]), who(r.agents[1]));
                races.entry((l1.min(l2), l1.max(l2), r.array)).or_insert(WarpRace {
                    earlier: r.earlier,
                    later: r.later,
                    threads: [t1, t2],
                    by_copy: [c1, c2],
                    byte: r.byte,
                });
            });
        }
        Ok(space)
    }

    /// Little-endian value of `size` bytes of `array` at `addr` as thread `t` sees them.
    pub fn load(&self, space: Space, t: usize, array: ArrayId, addr: u64, size: u32) -> u64 {
        let seed = self.cfg.seed;
        match space {
            Space::Global => self.global.load(seed, array, 0, addr, size),
            Space::Shared => self.shared.load(seed, array, 0, addr, size),
            Space::Local => self.local.load(seed, array, t as u64, addr, size),
        }
    }

    /// Stores `size` bytes of `x` into `array` at `addr` as thread `t`.
    pub fn store(&mut self, space: Space, t: usize, array: ArrayId, addr: u64, size: u32, x: u64) {
        match space {
            Space::Global => self.global.store(array, 0, addr, size, x),
            Space::Shared => self.shared.store(array, 0, addr, size, x),
            Space::Local => self.local.store(array, t as u64, addr, size, x),
        }
    }

    /// Arrives at (and for a sync, waits in) the current generation of a barrier.
    fn barrier(&mut self, t: usize, step: Step, b: &Barrier) -> Result<(), ExecError> {
        let (key, expected, wait) = match b {
            Barrier::Block => (BarKey::Named(0), None, true),
            Barrier::NamedSync { id, count } => {
                let count = count.as_ref().map(|c| self.eval(t, step.label, c)).transpose()?;
                (self.bar_id(t, step.label, id)?, count.map(|c| c.bits as u32), true)
            }
            Barrier::NamedArrive { id, count } => {
                let count = self.eval(t, step.label, count)?.bits as u32;
                (self.bar_id(t, step.label, id)?, Some(count), false)
            }
            Barrier::Warp => (BarKey::Warp(self.threads[t].lin / WARP_SIZE), None, true),
        };
        let gen = self
            .bars
            .entry(key)
            .or_insert_with(|| Generation::new(expected, step.label));
        let mismatch = gen.expected != expected;
        let divergent = expected.is_none() && gen.first != step.label && matches!(key, BarKey::Named(_));
        let th = &mut self.threads[t];
        gen.arrived += 1;
        gen.clock.join(&th.clock);
        th.clock.tick(t as Agent);
        if wait {
            gen.waiters.push(t);
            th.state = State::Blocked(Blocked::Bar);
            th.at = step.label;
        }
        if mismatch {
            self.defect(WarpDefect::CountMismatch(step.label));
        }
        if divergent {
            self.defect(WarpDefect::Divergent(step.label));
        }
        self.try_release(key);
        Ok(())
    }

    fn bar_id(&self, t: usize, label: Label, id: &Expr) -> Result<BarKey, ExecError> {
        let id = self.eval(t, label, id)?.bits;
        if id > 15 {
            return Err(ExecError::Unsupported(format!("barrier id {id} at label {}", label.0)));
        }
        Ok(BarKey::Named(id as u32))
    }

    /// Completes the generation of `key` if every thread it waits for arrived.
    fn try_release(&mut self, key: BarKey) {
        let live = |ts: &[Thread]| ts.iter().filter(|t| t.state != State::Done).count() as u32;
        let n = match key {
            BarKey::Named(_) => live(&self.threads),
            BarKey::Warp(w) => {
                let r = self.lanes(w);
                live(&self.threads[r])
            }
        };
        if !self.bars.get(&key).is_some_and(|g| g.complete(n)) {
            return;
        }
        let Some(gen) = self.bars.remove(&key) else { return };
        if gen.waiters.is_empty() {
            self.defect(WarpDefect::ArriveOnly(gen.first));
        }
        for w in gen.waiters {
            let th = &mut self.threads[w];
            th.clock.join(&gen.clock);
            th.state = State::Ready;
        }
    }
}

/// Whether an instruction synchronizes (ends a segment).
fn is_sync(i: Instr) -> bool {
    match i {
        Instr::Op(op) => op.is_async(),
        Instr::Barrier(_) => true,
        _ => false,
    }
}

/// Whether an instruction is an mbarrier test (a poll).
fn is_test(i: Instr) -> bool {
    matches!(i, Instr::Op(Op::Mbarrier(_, MbarOp::Test { .. })))
}
