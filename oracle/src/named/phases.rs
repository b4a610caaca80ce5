//! The checks that make the mbarrier phases of the simulated schedule ([`super::sim`]) hold in
//! every schedule, and the transaction counts match (the mbarrier counterpart of WELLSYNC):
//!
//! - every arrival and transaction a phase counts is ordered after the previous phase's
//!   completion (else it may count toward the previous phase: a stage refilled before its
//!   consumers released it), and phase 0's after the initialization;
//! - every `expect_tx` is ordered before one of its phase's arrivals (else the phase may
//!   complete before it);
//! - the bytes a phase expects are the bytes of the copies issued for it;
//! - a parity wait is ordered after the completion of the phase before the one it observes
//!   (else it may pass on an older phase of the same parity), and the phase after it cannot
//!   complete before the wait (else it observes a later one).
//!
//! Only phases some wait observes matter: nothing depends on how unobserved arrivals group.

use super::hb::Hb;
use super::pipeline::{AsyncEv, BarIdx, Mbarriers, PhaseSel};
use super::sim::{MbarHist, MemberKind, Sim};
use super::skeleton::AgentDone;
use super::units::Units;
use crate::ir::{Kernel, ProxyFence, Span};
use crate::report::{SyncDefect, SyncDefectKind};
use std::collections::HashSet;

/// Inputs of the phase checks.
pub(crate) struct PhaseCx<'a> {
    /// The kernel.
    pub(crate) k: &'a Kernel,
    /// Units and their traces.
    pub(crate) units: &'a Units,
    /// The mbarrier objects.
    pub(crate) mbars: &'a Mbarriers,
    /// The schedule.
    pub(crate) sim: &'a Sim,
    /// Happens-before.
    pub(crate) hb: &'a Hb,
}

impl PhaseCx<'_> {
    fn span(&self, (u, e): (u32, u32)) -> (crate::ir::Label, Span) {
        let x = &self.units.traces[u as usize].events[e as usize];
        (x.label, x.span)
    }
    fn loc(&self, at: (u32, u32)) -> String {
        self.k.loc(self.span(at).1)
    }
    fn defect(&self, kind: SyncDefectKind, at: &[(u32, u32)], trace: Vec<String>) -> SyncDefect {
        let mut labels = vec![];
        let mut spans = vec![];
        for &a in at {
            let (l, s) = self.span(a);
            if !labels.contains(&l) {
                labels.push(l);
                spans.push(s);
            }
        }
        SyncDefect {
            kind,
            labels,
            spans,
            trace,
        }
    }
    /// Whether event `at` is ordered after the completion of phase `j` of `h` (after the
    /// initialization for `j < 0`): after some wait that observed phase `j` or later.
    fn after_phase(&self, h: &MbarHist, j: i64, at: (u32, u32)) -> bool {
        if j < 0 {
            return h.init.is_some_and(|i| self.hb.before(i, at));
        }
        h.waits.iter().any(|&(x, ew, o)| o >= j && self.hb.before((x, ew), at))
    }
}

/// Every phase check over every mbarrier.
pub(crate) fn check(cx: &PhaseCx) -> Vec<SyncDefect> {
    let mut out = vec![];
    for (b, h) in cx.sim.mbars.iter().enumerate() {
        let b = b as BarIdx;
        if h.init.is_none() {
            continue;
        }
        let observed = h.waits.iter().map(|w| w.2).max().unwrap_or(-1);
        order(cx, b, h, observed, &mut out);
        out.extend(tx_mismatch(cx, b, observed + 1));
        parity(cx, b, h, &mut out);
    }
    out
}

/// Members of observed phases ordered after the previous phase; `expect_tx` before an arrival.
fn order(cx: &PhaseCx, b: BarIdx, h: &MbarHist, observed: i64, out: &mut Vec<SyncDefect>) {
    let name = cx.mbars.name(cx.k, b);
    let mut seen = HashSet::new();
    for (k, members) in h.members.iter().enumerate().take((observed + 1).max(0) as usize) {
        let k = k as i64;
        for &(u, e, kind) in members {
            if !cx.after_phase(h, k - 1, (u, e)) && seen.insert(cx.span((u, e)).0) {
                let what = cx.units.traces[u as usize].events[e as usize]
                    .op
                    .as_ref()
                    .map(|o| o.describe(cx.k, cx.mbars))
                    .unwrap_or_default();
                let before = if k == 0 {
                    format!("the initialization of {name}")
                } else {
                    format!("the completion of phase {} of {name}", k - 1)
                };
                let mut at = vec![(u, e)];
                at.extend(h.waits.iter().find(|w| w.2 == k - 1).map(|w| (w.0, w.1)));
                at.extend(h.init.filter(|_| k == 0));
                let kind = if k == 0 {
                    SyncDefectKind::UninitializedUse { barrier: name.clone() }
                } else {
                    SyncDefectKind::PhaseOrder {
                        barrier: name.clone(),
                        phase: k,
                    }
                };
                out.push(cx.defect(
                    kind,
                    &at,
                    vec![
                        format!(
                            "{} counts {what} ({}) toward phase {k} in the simulated schedule",
                            cx.units.name(u),
                            cx.loc((u, e))
                        ),
                        format!(
                            "nothing orders it after {before}, so in another schedule it counts toward an earlier phase (a stage refilled or released before the phase it belongs to completed)"
                        ),
                    ],
                ));
            }
            if let MemberKind::Expect(_) = kind {
                let covered = members.iter().any(|&(v, f, m)| {
                    matches!(m, MemberKind::Arrive(_)) && ((v, f) == (u, e) || cx.hb.before((u, e), (v, f)))
                });
                if !covered && seen.insert(cx.span((u, e)).0) {
                    out.push(cx.defect(
                        SyncDefectKind::PhaseOrder {
                            barrier: name.clone(),
                            phase: k,
                        },
                        &[(u, e)],
                        vec![format!(
                            "the expect_tx at {} is ordered before none of phase {k}'s arrivals on {name}: the phase may complete without waiting for its bytes",
                            cx.loc((u, e))
                        )],
                    ));
                }
            }
        }
    }
}

/// The phase each copy completing on `b` is issued for: that of the issuing unit's latest
/// `expect_tx` on `b` before the issue, else its next one, else where it completed.
fn intended(cx: &PhaseCx, h: &MbarHist, agent: u32) -> Option<i64> {
    let issuers = cx.units.issuers.get(agent as usize)?;
    let &(iu, ie) = issuers.first()?;
    let mut expects: Vec<(u32, i64)> = vec![];
    for (k, members) in h.members.iter().enumerate() {
        for &(u, e, m) in members {
            if u == iu && matches!(m, MemberKind::Expect(_)) {
                expects.push((e, k as i64));
            }
        }
    }
    expects.sort();
    if let Some(&(_, k)) = expects.iter().rev().find(|(e, _)| *e <= ie) {
        return Some(k);
    }
    if let Some(&(_, k)) = expects.first() {
        return Some(k);
    }
    let done = cx.sim.agent_done.get(agent as usize).copied().flatten()?;
    h.members
        .iter()
        .position(|m| m.iter().any(|&(u, e, _)| (u, e) == done))
        .map(|k| k as i64)
}

/// Phases (below `upto`) whose expected bytes differ from the bytes of the copies issued for
/// them (and the bytes threads completed).
pub(crate) fn tx_mismatch(cx: &PhaseCx, b: BarIdx, upto: i64) -> Vec<SyncDefect> {
    let h = &cx.sim.mbars[b as usize];
    let n = h.members.len().min(upto.max(0) as usize);
    let mut expected = vec![0i64; n];
    let mut completed = vec![0i64; n];
    let mut first: Vec<Option<(u32, u32)>> = vec![None; n];
    let mut copy_at: Vec<Option<(u32, u32)>> = vec![None; n];
    for (k, members) in h.members.iter().enumerate().take(n) {
        for &(u, e, m) in members {
            match m {
                MemberKind::Expect(x) => {
                    expected[k] += x;
                    first[k].get_or_insert((u, e));
                }
                MemberKind::Complete(x) => completed[k] += x,
                _ => {}
            }
        }
    }
    for (ai, done) in cx.units.done.iter().enumerate() {
        let AgentDone::Mbarrier { bar, bytes, .. } = *done else {
            continue;
        };
        if bar != b || !cx.sim.issued(cx.units, ai as u32) {
            continue;
        }
        if let Some(k) = intended(cx, h, ai as u32).filter(|&k| (k as usize) < n) {
            completed[k as usize] += bytes;
            copy_at[k as usize].get_or_insert(cx.units.issuers[ai].first().copied().unwrap_or((0, 0)));
        }
    }
    let name = cx.mbars.name(cx.k, b);
    let mut out = vec![];
    for k in 0..n {
        if expected[k] != completed[k] {
            let at: Vec<(u32, u32)> = first[k].into_iter().chain(copy_at[k]).collect();
            if at.is_empty() {
                continue;
            }
            out.push(cx.defect(
                SyncDefectKind::TxMismatch {
                    barrier: name.clone(),
                    phase: k as i64,
                    expected: expected[k],
                    completed: completed[k],
                },
                &at,
                vec![format!(
                    "phase {k} of {name} expects {} transaction bytes{}, but the copies issued for it complete {} bytes{}",
                    expected[k],
                    first[k].map(|a| format!(" (expect_tx at {})", cx.loc(a))).unwrap_or_default(),
                    completed[k],
                    copy_at[k].map(|a| format!(" (issued at {})", cx.loc(a))).unwrap_or_default()
                )],
            ));
        }
    }
    out
}

/// Whether copies complete on `b`, or some thread expects transaction bytes on it.
fn filled_by_copies(cx: &PhaseCx, b: BarIdx) -> bool {
    cx.units
        .done
        .iter()
        .any(|d| matches!(d, AgentDone::Mbarrier { bar, .. } if *bar == b))
        || cx.units.traces.iter().flat_map(|t| &t.events).any(|e| {
            matches!(e.op.as_deref(), Some(AsyncEv::ExpectTx { bar, .. }) if *bar == b)
                || matches!(e.op.as_deref(), Some(AsyncEv::Arrive { bar, tx, .. }) if *bar == b && *tx != 0)
        })
}

/// Parity waits that may observe another phase in another schedule.
fn parity(cx: &PhaseCx, b: BarIdx, h: &MbarHist, out: &mut Vec<SyncDefect>) {
    let name = cx.mbars.name(cx.k, b);
    let mut seen = HashSet::new();
    for &(x, ew, j) in &h.waits {
        let ev = &cx.units.traces[x as usize].events[ew as usize];
        let Some(AsyncEv::Wait {
            phase: PhaseSel::Parity(p),
            ..
        }) = ev.op.as_deref()
        else {
            continue;
        };
        let early = !cx.after_phase(h, j - 1, (x, ew));
        // Passing at once on a fresh barrier that copies fill: before any of its data landed.
        let fresh = j < 0 && filled_by_copies(cx, b);
        // The next phase cannot complete before the wait if one of its arrivals (or copies)
        // comes after it.
        let late = h.phases.get((j + 1) as usize).is_some() && {
            let next = &h.members[(j + 1) as usize];
            !next.iter().any(|&(u, e, m)| {
                matches!(m, MemberKind::Arrive(_) | MemberKind::Copies(_)) && cx.hb.before((x, ew), (u, e))
            })
        };
        if !(early || late || fresh) || !seen.insert(ev.label) {
            continue;
        }
        if early && j <= 0 {
            let mut at = vec![(x, ew)];
            at.extend(h.init);
            out.push(cx.defect(
                SyncDefectKind::UninitializedUse { barrier: name.clone() },
                &at,
                vec![format!(
                    "{} waits on {name} at {}, and nothing orders the wait after {name}'s initialization{}",
                    cx.units.name(x),
                    cx.loc((x, ew)),
                    h.init.map(|i| format!(" at {}", cx.loc(i))).unwrap_or_default()
                )],
            ));
            continue;
        }
        let seen_as = if j < 0 {
            format!("passes at once on the fresh {name} (no phase of parity {p} has completed; the one before phase 0 counts as parity 1)")
        } else {
            format!("observes phase {j} of {name}")
        };
        let why = if fresh {
            format!("{name} is filled by asynchronous copies, so the wait passes before any of them landed: its parity should name phase 0 (parity 0)")
        } else if early {
            if j <= 0 {
                format!("nothing orders it after the initialization of {name}")
            } else {
                format!(
                    "nothing orders it after phase {} completed, so it may pass on phase {} instead",
                    j - 1,
                    j - 2
                )
            }
        } else {
            format!(
                "phase {} may complete before it, so it may wait for phase {} instead",
                j + 1,
                j + 2
            )
        };
        out.push(cx.defect(
            SyncDefectKind::ParityMismatch {
                barrier: name.clone(),
                phase: j,
            },
            &[(x, ew)],
            vec![
                format!(
                    "{} waits for parity {p} at {}: in the simulated schedule it {seen_as}",
                    cx.units.name(x),
                    cx.loc((x, ew))
                ),
                why,
            ],
        ));
    }
}

/// An mbarrier that asynchronous copies complete on, initialized without a following
/// `fence.mbarrier_init` / `fence.proxy.async` by the initializing lanes: whether the copies
/// (the async proxy) see the initialization is not modelled.
pub(crate) fn proxy_fences(cx: &PhaseCx) -> Option<(Span, String)> {
    for (b, h) in cx.sim.mbars.iter().enumerate() {
        let Some((iu, ie)) = h.init else { continue };
        let by_copies = cx
            .units
            .done
            .iter()
            .any(|d| matches!(d, AgentDone::Mbarrier { bar, .. } if *bar == b as BarIdx));
        if !by_copies {
            continue;
        }
        let fenced = cx.units.traces[iu as usize].events[ie as usize..].iter().any(|e| {
            matches!(
                e.op.as_deref(),
                Some(AsyncEv::Fence(ProxyFence::MbarrierInit | ProxyFence::Async))
            )
        });
        if !fenced {
            let name = cx.mbars.name(cx.k, b as BarIdx);
            return Some((
                cx.span((iu, ie)).1,
                format!(
                    "{name} is initialized here and completed by asynchronous copies, with no fence.mbarrier_init (or fence.proxy.async) after the initialization: whether the async proxy sees it is not modelled"
                ),
            ));
        }
    }
    None
}

/// A TMA load sized by the bytes its lane announced is its box only if no other lane
/// announces bytes for the same phase (else which copy takes which bytes is not known): the
/// first phase where another does, as an inconclusive reason.
pub(crate) fn boxed_copies(cx: &PhaseCx) -> Option<(Span, String)> {
    for (ai, done) in cx.units.done.iter().enumerate() {
        let AgentDone::Mbarrier { bar, boxed: true, .. } = *done else {
            continue;
        };
        let h = &cx.sim.mbars[bar as usize];
        let Some(k) = intended(cx, h, ai as u32) else { continue };
        let mut lanes = HashSet::new();
        for &(u, e, m) in h.members.get(k as usize).into_iter().flatten() {
            let announced = match m {
                MemberKind::Expect(x) => x != 0,
                _ => false,
            };
            if announced {
                let info = &cx.units.info[u as usize];
                let mask = cx.units.traces[u as usize].events[e as usize].mask;
                lanes.extend((0..32).filter(|l| mask & (1 << l) != 0).map(|l| (info.warp, l)));
            }
        }
        if lanes.len() > 1 {
            let name = cx.mbars.name(cx.k, bar);
            let span = cx.units.traces[cx.units.agent_unit[ai] as usize].events[0].span;
            return Some((
                span,
                format!(
                    "this TMA tensor load's box (set by the host's tensor map) is bounded by the transaction bytes its thread announces on {name}, but {} threads announce bytes for phase {k}: which copy's box takes which bytes is not known (announce each copy's bytes in the thread that issues it)",
                    lanes.len()
                ),
            ));
        }
    }
    None
}
