//! One simulated schedule of the units' events: units run round-robin, each until it blocks
//! (at a named sync, at an mbarrier wait whose phase has not completed, at a group wait whose
//! copies have not completed, or, for copies, before their issue). Named-barrier
//! registrations form generations; an mbarrier phase completes when its pending arrivals and
//! its transaction count reach zero. Every completion is a generation: what WELLSYNC, the
//! phase checks and happens-before are computed over.

use super::pipeline::{AgentIdx, AsyncEv, BarIdx, Mbarriers, PhaseSel};
use super::skeleton::{AgentDone, EvKind};
use super::units::Units;
use crate::ir::Kernel;
use crate::report::{SyncDefect, SyncDefectKind};
use std::collections::HashMap;

/// Marks events that belong to no generation (unfinished registrations, plain events).
pub(crate) const NO_GEN: u32 = u32::MAX;

/// First key of the `__syncwarp` pseudo-barriers (key = this + warp).
const WARP_KEY: u32 = 16;

/// What a generation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GenKind {
    /// A named barrier's generation (`id` 0..=15).
    Named,
    /// A `__syncwarp` among the units of warp `id`.
    Warp,
    /// A completed phase of mbarrier `id`.
    Phase,
    /// The issue of agent `id`'s copies.
    Issue,
    /// The completion of the copies a group wait waits for.
    Group,
}

/// One completed generation.
#[derive(Clone, Debug)]
pub(crate) struct Gen {
    /// What it is.
    pub(crate) kind: GenKind,
    /// Barrier id, warp, mbarrier or agent (per kind).
    pub(crate) id: u32,
    /// 1-based generation number of a named barrier or warp; 0-based phase of an mbarrier.
    pub(crate) seq: u32,
    /// Contributors: (unit, event), whose clocks at the event flow into the generation.
    pub(crate) regs: Vec<(u32, u32)>,
    /// Which contributors also wait for it (named syncs).
    pub(crate) synced: Vec<bool>,
    /// An earlier generation whose clock flows in (an mbarrier's previous phase).
    pub(crate) prev: Option<u32>,
}

/// A named generation still open when the schedule stopped.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// Barrier id (or `__syncwarp` key).
    pub(crate) id: u32,
    /// Thread count.
    pub(crate) count: u32,
    /// Registrants so far.
    pub(crate) regs: Vec<(u32, u32)>,
    /// Threads registered so far.
    pub(crate) weight: u32,
}

/// How an event took part in an mbarrier phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemberKind {
    /// Arrivals (count over all lanes of the event).
    Arrive(i64),
    /// Expected transaction bytes.
    Expect(i64),
    /// Transaction bytes completed by a thread.
    Complete(i64),
    /// Transaction bytes completed by copies.
    Copies(i64),
}

/// An mbarrier's history in the schedule.
#[derive(Clone, Debug, Default)]
pub(crate) struct MbarHist {
    /// The `init` event.
    pub(crate) init: Option<(u32, u32)>,
    /// Expected arrivals per phase.
    pub(crate) expected: i64,
    /// Pending arrivals of the current phase.
    pub(crate) pending: i64,
    /// Transaction count of the current phase (expected minus completed bytes).
    pub(crate) tx: i64,
    /// Generation of every completed phase.
    pub(crate) phases: Vec<u32>,
    /// Per phase (completed ones, then the current), what took part: (unit, event, how).
    pub(crate) members: Vec<Vec<(u32, u32, MemberKind)>>,
    /// Waits that passed: (unit, event, observed phase; -1 for the one before phase 0).
    pub(crate) waits: Vec<(u32, u32, i64)>,
    /// Releasing contributions to the current phase.
    contrib: Vec<(u32, u32)>,
    /// Arrivals dropped from later phases.
    drops: i64,
    /// Invalidated.
    inval: bool,
}

/// An arrival that fires when copies complete (`cp.async.mbarrier.arrive`).
#[derive(Clone, Debug)]
struct Deferred {
    bar: BarIdx,
    lanes: i64,
    copies: Vec<AgentIdx>,
    at: (u32, u32),
}

/// The simulated schedule.
#[derive(Debug, Default)]
pub(crate) struct Sim {
    /// Completed generations in completion order (a topological order of the dependences).
    pub(crate) gens: Vec<Gen>,
    /// For every unit and event: the generation it registered in (named), else [`NO_GEN`].
    pub(crate) ev_gen: Vec<Vec<u32>>,
    /// For every unit and event: the generation whose clock it takes after the event.
    pub(crate) takes: Vec<Vec<u32>>,
    /// Number of events each unit got past.
    pub(crate) done_events: Vec<u32>,
    /// Units blocked (at a named sync, or at a wait) when no unit could move.
    pub(crate) blocked: Vec<(u32, u32)>,
    /// Open named generations at the end.
    pub(crate) pending: Vec<Pending>,
    /// A defect that stopped the schedule (count mismatch, arrivals past the count, use of
    /// an uninitialized mbarrier).
    pub(crate) error: Option<SyncDefect>,
    /// A reason the schedule cannot be judged.
    pub(crate) unsupported: Option<(crate::ir::Span, String)>,
    /// Per mbarrier, its history.
    pub(crate) mbars: Vec<MbarHist>,
    /// Per agent, its completion event once it completed.
    pub(crate) agent_done: Vec<Option<(u32, u32)>>,
    /// Per token arrival (warp, warp event), the mbarrier phase it counted in.
    token_phase: HashMap<(u32, u32), (BarIdx, u32)>,
    deferred: Vec<Deferred>,
    issued: Vec<u32>,
}

/// What a step of a unit did.
enum Step {
    Done,
    Block,
    Stop,
}

/// The inputs of the schedule.
struct Cx<'a> {
    k: &'a Kernel,
    units: &'a Units,
    mbars: &'a Mbarriers,
    tokens: &'a [(u32, u32)],
}

/// Runs the units round-robin, each until it blocks, forming generations.
pub(crate) fn simulate(k: &Kernel, units: &Units, mbars: &Mbarriers, tokens: &[(u32, u32)]) -> Sim {
    let warps = &units.traces;
    let nw = warps.len();
    let cx = Cx {
        k,
        units,
        mbars,
        tokens,
    };
    let mut sim = Sim {
        ev_gen: warps.iter().map(|w| vec![NO_GEN; w.events.len()]).collect(),
        takes: warps.iter().map(|w| vec![NO_GEN; w.events.len()]).collect(),
        done_events: vec![0; nw],
        mbars: vec![MbarHist::default(); mbars.keys.len()],
        agent_done: vec![None; units.agent_unit.len()],
        issued: vec![0; units.agent_unit.len()],
        ..Sim::default()
    };
    let mut named = Named::default();
    loop {
        let mut progress = false;
        #[allow(clippy::needless_range_loop)] // `sim` is borrowed mutably in the body
        for w in 0..nw {
            while !named.blocked(w) && (sim.done_events[w] as usize) < warps[w].events.len() {
                let ei = sim.done_events[w];
                let e = &warps[w].events[ei as usize];
                let step = match e.kind {
                    EvKind::Async => sim.async_step(&cx, w as u32, ei),
                    _ => named.step(&cx, &mut sim, w as u32, ei),
                };
                match step {
                    Step::Done => {
                        sim.done_events[w] += 1;
                        progress = true;
                        // Copies may complete at once: the simulated schedule lets them.
                        if let Some(AsyncEv::Issue { agent }) = e.op.as_deref() {
                            if let Step::Stop = sim.run_agent(&cx, *agent) {
                                return sim;
                            }
                        }
                    }
                    Step::Block => {
                        progress |= named.blocked(w);
                        break;
                    }
                    Step::Stop => return sim,
                }
            }
        }
        if !progress {
            break;
        }
    }
    // Copies never issued are not waiting for anything.
    sim.blocked = (0..nw)
        .filter(|&w| (sim.done_events[w] as usize) < warps[w].events.len())
        .filter(|&w| units.info[w].agent.is_none() || sim.done_events[w] > 0)
        .map(|w| (w as u32, sim.done_events[w]))
        .collect();
    sim.pending = named.open.into_values().collect();
    sim.pending.sort_by_key(|p| p.id);
    sim
}

/// The named-barrier (and `__syncwarp`) registrations of the schedule.
#[derive(Default)]
struct Named {
    open: HashMap<u32, Pending>,
    seqs: HashMap<u32, u32>,
    blocked: Vec<bool>,
}

impl Named {
    fn blocked(&self, w: usize) -> bool {
        self.blocked.get(w).copied().unwrap_or(false)
    }

    /// Registers event `ei` of unit `w` (a sync, an arrive or a `__syncwarp`).
    fn step(&mut self, cx: &Cx, sim: &mut Sim, w: u32, ei: u32) -> Step {
        let warps = &cx.units.traces;
        if self.blocked.len() < warps.len() {
            self.blocked.resize(warps.len(), false);
        }
        let e = &warps[w as usize].events[ei as usize];
        let info = cx.units.info[w as usize];
        let (key, count, weight) = match e.kind {
            EvKind::Warp => (
                WARP_KEY + info.warp,
                cx.units.warp_lanes[info.warp as usize],
                info.mask.count_ones(),
            ),
            _ => (e.id, e.count, info.weight),
        };
        let p = self.open.entry(key).or_insert(Pending {
            id: key,
            count,
            regs: vec![],
            weight: 0,
        });
        if p.count != count {
            let (fw, fe) = p.regs[0];
            let first = &warps[fw as usize].events[fe as usize];
            sim.error = Some(SyncDefect {
                kind: SyncDefectKind::CountMismatch {
                    counts: (p.count, count),
                },
                labels: vec![first.label, e.label],
                spans: vec![first.span, e.span],
                trace: vec![format!(
                    "{} registers on barrier {} with count {} at {}; {} joins the same generation with count {} at {}",
                    cx.units.name(fw),
                    e.id,
                    p.count,
                    cx.k.loc(first.span),
                    cx.units.name(w),
                    count,
                    cx.k.loc(e.span)
                )],
            });
            return Step::Stop;
        }
        p.regs.push((w, ei));
        p.weight += weight;
        let syncs = e.kind != EvKind::Arrive;
        if syncs {
            self.blocked[w as usize] = true;
        }
        if p.weight >= p.count {
            let p = self.open.remove(&key).unwrap_or(Pending {
                id: key,
                count,
                regs: vec![],
                weight: 0,
            });
            let seq = self.seqs.entry(key).or_insert(0);
            *seq += 1;
            let gi = sim.gens.len() as u32;
            let mut synced = vec![];
            for &(u, ue) in &p.regs {
                sim.ev_gen[u as usize][ue as usize] = gi;
                let s = warps[u as usize].events[ue as usize].kind != EvKind::Arrive;
                if s {
                    sim.takes[u as usize][ue as usize] = gi;
                    self.blocked[u as usize] = false;
                    if u != w {
                        sim.done_events[u as usize] = ue + 1;
                    }
                }
                synced.push(s);
            }
            let warp_barrier = key >= WARP_KEY;
            sim.gens.push(Gen {
                kind: if warp_barrier { GenKind::Warp } else { GenKind::Named },
                id: if warp_barrier { key - WARP_KEY } else { key },
                seq: *seq,
                regs: p.regs,
                synced,
                prev: None,
            });
            return Step::Done;
        }
        if syncs {
            Step::Block
        } else {
            Step::Done
        }
    }
}

impl Sim {
    /// Whether all issuing lanes of an agent issued it.
    pub(crate) fn issued(&self, units: &Units, agent: AgentIdx) -> bool {
        self.issued[agent as usize] as usize >= units.issuers[agent as usize].len()
    }

    /// Runs an agent's start and completion right after its issue, if it is fully issued.
    fn run_agent(&mut self, cx: &Cx, agent: AgentIdx) -> Step {
        let au = cx.units.agent_unit[agent as usize] as usize;
        if !self.issued(cx.units, agent) || self.done_events[au] != 0 {
            return Step::Done;
        }
        for ei in 0..cx.units.traces[au].events.len() as u32 {
            match self.async_step(cx, au as u32, ei) {
                Step::Done => self.done_events[au] += 1,
                s => return s,
            }
        }
        Step::Done
    }

    /// Stops the schedule with a defect.
    fn fail(&mut self, kind: SyncDefectKind, cx: &Cx, at: &[(u32, u32)], trace: Vec<String>) -> Step {
        let evs: Vec<_> = at
            .iter()
            .map(|&(u, e)| &cx.units.traces[u as usize].events[e as usize])
            .collect();
        self.error = Some(SyncDefect {
            kind,
            labels: evs.iter().map(|e| e.label).collect(),
            spans: evs.iter().map(|e| e.span).collect(),
            trace,
        });
        Step::Stop
    }

    /// The state of an mbarrier an operation at (`u`, `ei`) uses; a defect when it was never
    /// initialized or was invalidated.
    fn live(&mut self, cx: &Cx, bar: BarIdx, u: u32, ei: u32) -> Result<(), Step> {
        let h = &self.mbars[bar as usize];
        if h.init.is_some() && !h.inval {
            return Ok(());
        }
        let e = &cx.units.traces[u as usize].events[ei as usize];
        let what = e.op.as_ref().map(|o| o.describe(cx.k, cx.mbars)).unwrap_or_default();
        let name = cx.mbars.name(cx.k, bar);
        let why = if h.inval {
            format!("{name} was invalidated (mbarrier.inval) before")
        } else {
            format!("no mbarrier.init of {name} has run before it in this schedule")
        };
        let mut at = vec![(u, ei)];
        at.extend(h.init);
        Err(self.fail(
            SyncDefectKind::UninitializedUse { barrier: name },
            cx,
            &at,
            vec![format!(
                "{} runs {what} at {}; {why}",
                cx.units.name(u),
                cx.k.loc(e.span)
            )],
        ))
    }

    /// Completes the current phase of `bar` while its arrivals and transactions are zero.
    fn try_complete(&mut self, bar: BarIdx) {
        loop {
            let h = &mut self.mbars[bar as usize];
            if h.init.is_none() || h.pending != 0 || h.tx != 0 || h.expected <= 0 {
                return;
            }
            let gi = self.gens.len() as u32;
            let seq = h.phases.len() as u32;
            let regs = std::mem::take(&mut h.contrib);
            let prev = h.phases.last().copied();
            h.phases.push(gi);
            h.members.push(vec![]);
            h.expected -= h.drops;
            h.drops = 0;
            h.pending = h.expected;
            for &(u, e) in &regs {
                self.ev_gen[u as usize][e as usize] = gi;
            }
            self.gens.push(Gen {
                kind: GenKind::Phase,
                id: bar,
                seq,
                synced: vec![false; regs.len()],
                regs,
                prev,
            });
        }
    }

    /// Records a member of the current phase of `bar`.
    fn member(&mut self, bar: BarIdx, u: u32, e: u32, kind: MemberKind, releases: bool) {
        let h = &mut self.mbars[bar as usize];
        if h.members.is_empty() {
            h.members.push(vec![]);
        }
        if let Some(cur) = h.members.last_mut() {
            cur.push((u, e, kind));
        }
        if releases {
            h.contrib.push((u, e));
        }
    }

    /// Arrivals on `bar` (over its pending count: a defect).
    fn arrive(&mut self, cx: &Cx, bar: BarIdx, n: i64, at: (u32, u32), releases: bool) -> Step {
        let h = &self.mbars[bar as usize];
        if n > h.pending {
            let (pending, expected) = (h.pending, h.expected);
            let name = cx.mbars.name(cx.k, bar);
            let e = &cx.units.traces[at.0 as usize].events[at.1 as usize];
            return self.fail(
                SyncDefectKind::ArrivalOverflow {
                    barrier: name.clone(),
                    count: expected,
                },
                cx,
                &[at],
                vec![format!(
                    "{} arrives {n} time(s) on {name} at {} while its phase {} expects only {pending} more arrival(s) of {expected}",
                    cx.units.name(at.0),
                    cx.k.loc(e.span),
                    self.mbars[bar as usize].phases.len()
                )],
            );
        }
        self.mbars[bar as usize].pending -= n;
        self.member(bar, at.0, at.1, MemberKind::Arrive(n), releases);
        self.try_complete(bar);
        Step::Done
    }

    /// Fires the deferred arrivals whose copies all completed.
    fn fire_deferred(&mut self, cx: &Cx) -> Option<Step> {
        let mut i = 0;
        while i < self.deferred.len() {
            let d = &self.deferred[i];
            if d.copies.iter().all(|&a| self.agent_done[a as usize].is_some()) {
                let d = self.deferred.remove(i);
                let regs: Vec<(u32, u32)> = d.copies.iter().filter_map(|&a| self.agent_done[a as usize]).collect();
                if let Step::Stop = self.arrive(cx, d.bar, d.lanes, d.at, false) {
                    return Some(Step::Stop);
                }
                // The arrival releases what the copies did, not what the thread did.
                self.mbars[d.bar as usize].contrib.extend(regs);
                self.try_complete(d.bar);
            } else {
                i += 1;
            }
        }
        None
    }

    /// One async-pipeline event of unit `u`.
    fn async_step(&mut self, cx: &Cx, u: u32, ei: u32) -> Step {
        let e = &cx.units.traces[u as usize].events[ei as usize];
        let Some(op) = e.op.clone() else { return Step::Done };
        let lanes = e.mask.count_ones() as i64;
        if let Some(bar) = op.bar() {
            if !matches!(*op, AsyncEv::Init { .. }) {
                if let Err(s) = self.live(cx, bar, u, ei) {
                    return s;
                }
            }
        }
        match *op {
            AsyncEv::Init { bar, count } => self.init(cx, bar, count, u, ei),
            AsyncEv::Arrive {
                bar,
                count,
                tx,
                drop,
                token,
            } => {
                if tx != 0 {
                    self.mbars[bar as usize].tx += tx * lanes;
                    self.member(bar, u, ei, MemberKind::Expect(tx * lanes), false);
                }
                if let Some(t) = token {
                    let phase = self.mbars[bar as usize].phases.len() as u32;
                    self.token_phase.insert(cx.tokens[t as usize], (bar, phase));
                }
                if drop {
                    self.mbars[bar as usize].drops += lanes;
                }
                self.arrive(cx, bar, count * lanes, (u, ei), true)
            }
            AsyncEv::ExpectTx { bar, bytes } => {
                self.mbars[bar as usize].tx += bytes * lanes;
                self.member(bar, u, ei, MemberKind::Expect(bytes * lanes), false);
                Step::Done
            }
            AsyncEv::CompleteTx { bar, bytes } => {
                self.mbars[bar as usize].tx -= bytes * lanes;
                self.member(bar, u, ei, MemberKind::Complete(bytes * lanes), false);
                self.try_complete(bar);
                Step::Done
            }
            AsyncEv::Wait { bar, phase } => self.wait(cx, bar, phase, u, ei),
            AsyncEv::ArriveOnCopies { bar, noinc, ref copies } => {
                if !noinc {
                    self.mbars[bar as usize].pending += lanes;
                }
                self.deferred.push(Deferred {
                    bar,
                    lanes,
                    copies: copies.iter().flat_map(|(_, v)| v.iter().copied()).collect(),
                    at: (u, ei),
                });
                self.fire_deferred(cx).unwrap_or(Step::Done)
            }
            AsyncEv::Inval { bar } => {
                self.mbars[bar as usize].inval = true;
                Step::Done
            }
            AsyncEv::Issue { agent } => self.issue(cx, agent),
            AsyncEv::AgentStart { .. } => {
                if self.takes[u as usize][0] == NO_GEN {
                    Step::Block
                } else {
                    Step::Done
                }
            }
            AsyncEv::AgentDone { agent } => {
                self.agent_done[agent as usize] = Some((u, ei));
                if let Some(AgentDone::Mbarrier { bar, bytes, .. }) = cx.units.done.get(agent as usize).copied() {
                    if let Err(s) = self.live(cx, bar, u, ei) {
                        return s;
                    }
                    self.mbars[bar as usize].tx -= bytes;
                    self.member(bar, u, ei, MemberKind::Copies(bytes), true);
                    self.try_complete(bar);
                }
                self.fire_deferred(cx).unwrap_or(Step::Done)
            }
            AsyncEv::WaitGroup { ref done } => self.wait_group(done, u, ei),
            AsyncEv::Fence(_) => Step::Done,
        }
    }

    /// `mbarrier.init`: a fresh history with phase 0 expecting `count` arrivals.
    fn init(&mut self, cx: &Cx, bar: BarIdx, count: i64, u: u32, ei: u32) -> Step {
        let e = &cx.units.traces[u as usize].events[ei as usize];
        let h = &mut self.mbars[bar as usize];
        if h.init.is_some() && !h.inval {
            self.unsupported = Some((
                e.span,
                format!(
                    "{} is initialized again while in use (without mbarrier.inval)",
                    cx.mbars.name(cx.k, bar)
                ),
            ));
            return Step::Stop;
        }
        *h = MbarHist {
            init: Some((u, ei)),
            expected: count,
            pending: count,
            members: vec![vec![]],
            ..MbarHist::default()
        };
        if count <= 0 {
            return self.fail(
                SyncDefectKind::ArrivalOverflow {
                    barrier: cx.mbars.name(cx.k, bar),
                    count,
                },
                cx,
                &[(u, ei)],
                vec![format!("mbarrier.init with count {count}: no phase can complete")],
            );
        }
        Step::Done
    }

    /// The issue of a set of copies: once every issuer issued, a generation their unit takes.
    fn issue(&mut self, cx: &Cx, agent: AgentIdx) -> Step {
        let a = agent as usize;
        self.issued[a] += 1;
        if self.issued[a] as usize >= cx.units.issuers[a].len() {
            let gi = self.gens.len() as u32;
            let regs = cx.units.issuers[a].clone();
            for &(x, xe) in &regs {
                self.ev_gen[x as usize][xe as usize] = gi;
            }
            self.gens.push(Gen {
                kind: GenKind::Issue,
                id: agent,
                seq: 0,
                synced: vec![false; regs.len()],
                regs,
                prev: None,
            });
            let au = cx.units.agent_unit[a];
            self.takes[au as usize][0] = gi;
        }
        Step::Done
    }

    /// `cp.async.wait_group`: blocks until the copies it waits for completed, then takes them.
    fn wait_group(&mut self, done: &[(u8, Vec<AgentIdx>)], u: u32, ei: u32) -> Step {
        let copies: Vec<AgentIdx> = done.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        if copies.iter().any(|&a| self.agent_done[a as usize].is_none()) {
            return Step::Block;
        }
        let regs: Vec<(u32, u32)> = copies.iter().filter_map(|&a| self.agent_done[a as usize]).collect();
        if !regs.is_empty() {
            let gi = self.gens.len() as u32;
            self.gens.push(Gen {
                kind: GenKind::Group,
                id: u,
                seq: 0,
                synced: vec![false; regs.len()],
                regs,
                prev: None,
            });
            self.takes[u as usize][ei as usize] = gi;
        }
        Step::Done
    }

    /// A wait: passes once the phase it names completed, taking that phase's clock.
    fn wait(&mut self, cx: &Cx, bar: BarIdx, phase: PhaseSel, u: u32, ei: u32) -> Step {
        let h = &self.mbars[bar as usize];
        let completed = h.phases.len() as i64;
        let observed = match phase {
            PhaseSel::Parity(p) => (completed % 2 != p as i64).then_some(completed - 1),
            PhaseSel::Token(t) => match self.token_phase.get(&cx.tokens[t as usize]) {
                Some(&(b, ph)) if b == bar => (completed > ph as i64).then_some(ph as i64),
                Some(_) => {
                    self.unsupported = Some((
                        cx.units.traces[u as usize].events[ei as usize].span,
                        "a wait on a token of another mbarrier".into(),
                    ));
                    return Step::Stop;
                }
                None => None,
            },
        };
        let Some(j) = observed else { return Step::Block };
        if j >= 0 {
            self.takes[u as usize][ei as usize] = h.phases[j as usize];
        }
        self.mbars[bar as usize].waits.push((u, ei, j));
        Step::Done
    }
}
