//! The async-pipeline ops of the warp-scheduling executor: mbarrier operations, asynchronous
//! copies (agents of their own that land when the schedule picks them), `cp.async` commit
//! groups and `cp.async.mbarrier.arrive` (an arrival made when the thread's copies have landed).

use super::clock::{Agent, Clock};
use super::config::ExecError;
use super::findings::WarpDefect;
use super::machine::{Blocked, Deferred, InFlight, Machine, MbarKey, State};
use super::program::Step;
use super::sync::{InitSite, Mbar, Want};
use super::value::mix;
use crate::ir::*;

impl<'k> Machine<'k> {
    /// Runs an async op of thread `t`; `false` for an mbarrier test that failed.
    pub fn async_op(&mut self, t: usize, step: Step<'k>, op: &'k Op) -> Result<bool, ExecError> {
        match op {
            Op::Mbarrier(r, m) => {
                let key = (r.array, self.eval(t, step.label, &r.offset)?.bits);
                self.mbar_op(t, step.label, key, m)
            }
            Op::AsyncCopy(c) => {
                self.issue(t, step.label, c)?;
                Ok(true)
            }
            Op::AsyncGroup(AsyncGroupOp::Commit) => {
                let th = &mut self.threads[t];
                let group = std::mem::take(&mut th.uncommitted);
                th.groups.push(group);
                Ok(true)
            }
            Op::AsyncGroup(AsyncGroupOp::Wait(n)) => {
                self.block(t, step.label, Blocked::Group(*n, false));
                Ok(true)
            }
            Op::AsyncGroup(AsyncGroupOp::BulkCommit) => {
                let th = &mut self.threads[t];
                let group = std::mem::take(&mut th.bulk_uncommitted);
                th.bulk_groups.push(group);
                Ok(true)
            }
            // A store lands whole (reads and writes at once), so `.read` waits for it too:
            // one of the schedules the hardware allows.
            Op::AsyncGroup(AsyncGroupOp::BulkWait(n, _)) => {
                self.block(t, step.label, Blocked::Group(*n, true));
                Ok(true)
            }
            // The async proxy sees the thread's generic writes so far; an mbarrier-init
            // fence orders nothing the executor models.
            Op::ProxyFence(ProxyFence::Async) => {
                self.proxy.fence(t as Agent, &self.threads[t].clock);
                Ok(true)
            }
            Op::ProxyFence(ProxyFence::MbarrierInit) => Ok(true),
            Op::Wgmma(_) | Op::AsyncGroup(AsyncGroupOp::WgmmaCommit | AsyncGroupOp::WgmmaWait(_)) => Err(
                ExecError::Unsupported("wgmma (its operands are decoded by the named-barrier checker only)".into()),
            ),
            _ => unreachable!("plain ops are run by plain_op"),
        }
    }

    /// Blocks thread `t` at `label`, and lets it run on at once if the wait passes already.
    fn block(&mut self, t: usize, label: Label, why: Blocked) {
        let th = &mut self.threads[t];
        th.state = State::Blocked(why);
        th.at = label;
        self.resume(t);
    }

    fn mbar_op(&mut self, t: usize, label: Label, key: MbarKey, m: &MbarOp) -> Result<bool, ExecError> {
        let eval = |me: &Self, e: &Expr| me.eval(t, label, e).map(|v| v.bits as i64);
        if let MbarOp::Init { count } = m {
            let count = eval(self, count)?;
            let site = InitSite {
                agent: t as Agent,
                epoch: self.threads[t].clock.get(t as Agent),
                label,
            };
            self.mbars.entry(key).or_insert_with(Mbar::fresh).init(count, site);
            return Ok(true);
        }
        let initialized = self.check_init(t as Agent, key, label);
        // Arrivals and bytes on a barrier that is not initialized change nothing.
        if !initialized && !matches!(m, MbarOp::Test { .. } | MbarOp::Wait { .. }) {
            return Ok(true);
        }
        match m {
            MbarOp::Arrive { count, tx, drop, token } => {
                let count = eval(self, count)?;
                let tx = tx.as_ref().map(|b| eval(self, b)).transpose()?;
                *self.threads[t].tx_budget.entry(key).or_default() += tx.unwrap_or(0);
                self.arrive(t, label, key, (count, tx.unwrap_or(0), *drop), *token)?;
            }
            MbarOp::ExpectTx { bytes } => {
                let bytes = eval(self, bytes)?;
                *self.threads[t].tx_budget.entry(key).or_default() += bytes;
                self.mbars.entry(key).or_insert_with(Mbar::fresh).tx += bytes;
            }
            MbarOp::CompleteTx { bytes } => {
                let bytes = eval(self, bytes)?;
                let th = &mut self.threads[t];
                self.mbars
                    .entry(key)
                    .or_insert_with(Mbar::fresh)
                    .complete_tx(bytes, &th.clock);
                th.clock.tick(t as Agent);
            }
            MbarOp::Test { dst, phase } => {
                let want = self.want(t, label, phase)?;
                let seen = self.mbars.get(&key).and_then(|m| m.passes(want));
                if let Some(c) = &seen {
                    self.threads[t].clock.join(c);
                }
                if let Some(v) = dst {
                    self.set(t, *v, ScalarTy::Bool, seen.is_some() as u64)?;
                }
                return Ok(seen.is_some());
            }
            MbarOp::Wait { phase } => {
                let want = self.want(t, label, phase)?;
                self.block(t, label, Blocked::Mbar(key, want));
            }
            MbarOp::ArriveOnCopies { noinc } => self.arrive_on_copies(t, label, key, *noinc),
            MbarOp::Inval => {
                self.mbars.entry(key).or_insert_with(Mbar::fresh).init = None;
            }
            MbarOp::Init { .. } => unreachable!("handled above"),
        }
        Ok(true)
    }

    /// `count` arrivals of thread `t` after raising the transaction count by `tx` bytes; the
    /// token (if kept) is the phase arrived in.
    fn arrive(
        &mut self,
        t: usize,
        label: Label,
        key: MbarKey,
        (count, tx, drop): (i64, i64, bool),
        token: Option<VarId>,
    ) -> Result<(), ExecError> {
        let mbar = self.mbars.entry(key).or_insert_with(Mbar::fresh);
        let th = &mut self.threads[t];
        mbar.tx += tx;
        let phase = mbar.phase;
        let overflow = mbar.arrive(count, drop, &th.clock);
        th.clock.tick(t as Agent);
        if let Some(v) = token {
            self.set(t, v, ScalarTy::U64, phase)?;
        }
        if overflow {
            self.defect(WarpDefect::ArrivalOverflow(label));
        }
        Ok(())
    }

    /// `cp.async.mbarrier.arrive{.noinc}` of thread `t`: without `.noinc` the pending count
    /// is raised now (the arrival is not one of the `init` count); the arrival itself waits
    /// until the copies `t` issued so far have landed.
    fn arrive_on_copies(&mut self, t: usize, label: Label, key: MbarKey, noinc: bool) {
        if !noinc {
            self.mbars.entry(key).or_insert_with(Mbar::fresh).pending += 1;
        }
        let copies = (0..self.copies.len())
            .filter(|&c| self.copies[c].issuer == t && self.copies[c].op.completion == AsyncCompletion::Group)
            .collect();
        let th = &mut self.threads[t];
        let clock = th.clock.clone();
        th.clock.tick(t as Agent);
        self.deferred.push(Deferred {
            key,
            label,
            copies,
            clock,
        });
        self.fire_deferred();
    }

    /// Makes the deferred arrivals whose copies have all landed.
    fn fire_deferred(&mut self) {
        let (ready, waiting): (Vec<Deferred>, Vec<Deferred>) = std::mem::take(&mut self.deferred)
            .into_iter()
            .partition(|d| d.copies.iter().all(|&c| self.copies[c].landed));
        self.deferred = waiting;
        for mut d in ready {
            for &c in &d.copies {
                d.clock.join(&self.copies[c].clock);
            }
            let overflow = self
                .mbars
                .entry(d.key)
                .or_insert_with(Mbar::fresh)
                .arrive(1, false, &d.clock);
            if overflow {
                self.defect(WarpDefect::ArrivalOverflow(d.label));
            }
        }
    }

    fn want(&self, t: usize, label: Label, phase: &MbarPhase) -> Result<Want, ExecError> {
        Ok(match phase {
            MbarPhase::Parity(e) => Want::Parity(self.eval(t, label, e)?.bits & 1),
            MbarPhase::Token(e) => Want::Token(self.eval(t, label, e)?.bits),
        })
    }

    /// Whether the barrier is initialized; a use not ordered after its initialization (or of
    /// a barrier not initialized) is a defect.
    fn check_init(&mut self, agent: Agent, key: MbarKey, label: Label) -> bool {
        let init = self.mbars.get(&key).and_then(|m| m.init);
        let ordered = init.is_some_and(|i| i.agent == agent || self.clock_of(agent).get(i.agent) >= i.epoch);
        if !ordered {
            self.defect(WarpDefect::Uninitialized(label));
        }
        init.is_some()
    }

    /// The clock of a thread or a copy.
    pub fn clock_of(&self, agent: Agent) -> &Clock {
        let n = self.threads.len();
        match (agent as usize).checked_sub(n) {
            Some(c) => &self.copies[c].clock,
            None => &self.threads[agent as usize].clock,
        }
    }

    /// Issues a copy: an agent ordered after everything its thread did so far.
    fn issue(&mut self, t: usize, label: Label, op: &'k AsyncCopy) -> Result<(), ExecError> {
        let dst = self.eval(t, label, &op.dst.offset)?.bits;
        let src = op.src.as_ref().map(|s| self.eval(t, label, &s.offset)).transpose()?;
        let mbar = match &op.completion {
            AsyncCompletion::Mbarrier(r) => {
                let key = (r.array, self.eval(t, label, &r.offset)?.bits);
                Some((key, self.copy_bytes(t, label, op, key)?))
            }
            AsyncCompletion::Group | AsyncCompletion::BulkGroup => None,
        };
        let size = match (&op.bytes, mbar) {
            (None, Some((_, b))) => b as u32,
            _ => op.dst.size,
        };
        let index = self.copies.len();
        let agent = (self.threads.len() + index) as Agent;
        let th = &mut self.threads[t];
        let mut clock = th.clock.clone();
        clock.tick(agent);
        th.clock.tick(t as Agent);
        match op.completion {
            AsyncCompletion::Group => th.uncommitted.push(index),
            AsyncCompletion::BulkGroup => th.bulk_uncommitted.push(index),
            AsyncCompletion::Mbarrier(_) => {}
        }
        self.copies.push(InFlight {
            issuer: t,
            label,
            op,
            dst,
            src: src.map(|v| v.bits),
            mbar,
            size,
            clock,
            landed: false,
        });
        Ok(())
    }

    /// Copy `c` lands: it reads its source, writes its destination, and completes its bytes
    /// on its mbarrier.
    pub fn land(&mut self, c: usize) -> Result<(), ExecError> {
        let agent = (self.threads.len() + c) as Agent;
        let InFlight {
            issuer,
            label,
            op,
            dst,
            src,
            mbar,
            size,
            ..
        } = self.copies[c];
        if let (Some(s), Some(a)) = (&op.src, src) {
            self.record(agent, label, s, a, s.size)?;
            if !matches!(op.completion, AsyncCompletion::Group) && self.k.array(s.array).space == Space::Shared {
                self.proxy_reads(c, (s.array, a), s.size);
            }
        }
        let space = self.record(agent, label, &op.dst, dst, size)?;
        for i in (0..size as u64).step_by(8) {
            let n = (size as u64 - i).min(8) as u32;
            let x = match (&op.src, src) {
                (Some(s), Some(a)) => self.load(self.k.array(s.array).space, issuer, s.array, a + i, n),
                _ => mix(&[self.cfg.seed, 0xC0_B1, c as u64, i]),
            };
            self.store(space, issuer, op.dst.array, dst + i, n, x);
        }
        self.copies[c].landed = true;
        self.progress += 1;
        if let Some((key, bytes)) = mbar {
            if self.check_init(agent, key, label) {
                let m = self.mbars.entry(key).or_insert_with(Mbar::fresh);
                m.complete_tx(bytes, &self.copies[c].clock);
            }
        }
        self.fire_deferred();
        Ok(())
    }

    /// Copy `c` reads `size` bytes from `start` through the async proxy: a write it sees
    /// unfenced is a missing proxy fence.
    fn proxy_reads(&mut self, c: usize, (array, start): (ArrayId, u64), size: u32) {
        let clock = &self.copies[c].clock;
        let unfenced = (0..size as u64).find_map(|i| self.proxy.unfenced_read((array, start + i), clock));
        if let Some(write) = unfenced {
            self.defect(WarpDefect::MissingProxyFence(write));
        }
    }

    /// The transaction bytes a copy of thread `t` completes on `key`: its own, or for a TMA
    /// load whose box the host decides, what `t` announced there that its copies did not take.
    fn copy_bytes(&mut self, t: usize, label: Label, op: &AsyncCopy, key: MbarKey) -> Result<i64, ExecError> {
        let budget = self.threads[t].tx_budget.entry(key).or_default();
        let bytes = match &op.bytes {
            Some(b) => self.eval(t, label, b)?.bits as i64,
            None if *budget > 0 => *budget,
            None => {
                return Err(ExecError::Unsupported(
                    "a TMA load with no transaction bytes announced by its thread".into(),
                ))
            }
        };
        *self.threads[t].tx_budget.entry(key).or_default() -= bytes;
        Ok(bytes)
    }

    /// Thread `t`'s committed groups (its bulk groups if `bulk`).
    fn groups_of(&self, t: usize, bulk: bool) -> &[Vec<usize>] {
        let th = &self.threads[t];
        if bulk {
            &th.bulk_groups
        } else {
            &th.groups
        }
    }

    /// Whether every committed group of thread `t` but the newest `n` has landed.
    pub fn groups_landed(&self, t: usize, n: u32, bulk: bool) -> bool {
        let g = self.groups_of(t, bulk);
        let upto = g.len().saturating_sub(n as usize);
        g[..upto].iter().flatten().all(|&c| self.copies[c].landed)
    }

    /// The join of the clocks of thread `t`'s groups but the newest `n`.
    pub fn landed_clock(&self, t: usize, n: u32, bulk: bool) -> Clock {
        let g = self.groups_of(t, bulk);
        let upto = g.len().saturating_sub(n as usize);
        let mut clock = Clock::default();
        for &c in g[..upto].iter().flatten() {
            clock.join(&self.copies[c].clock);
        }
        clock
    }
}
