//! Units: what the schedule, happens-before and the race checks run over. The lanes of a warp
//! that executed the same events form one unit (a warp is one unit unless mbarrier
//! operations or copies ran on some of its lanes only, like an elected producer lane); the
//! copies an event issued form a unit of their own, with two events: its start (after the
//! issue) and its completion (on an mbarrier, or in a commit group), and its accesses between.

use super::pipeline::{AgentIdx, AsyncEv};
use super::skeleton::{Agent, AgentDone, EvKind, Event, WarpTrace, WARP};
use std::collections::HashMap;
use std::rc::Rc;

/// What a unit is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnitInfo {
    /// The warp it belongs to (the issuing warp for copies).
    pub(crate) warp: u32,
    /// Its lanes (the issuing lanes for copies).
    pub(crate) mask: u32,
    /// The copies it stands for, if it is an agent.
    pub(crate) agent: Option<AgentIdx>,
    /// Threads it counts for at a named barrier (a whole warp counts as 32).
    pub(crate) weight: u32,
}

/// The units of a block.
#[derive(Clone, Debug, Default)]
pub(crate) struct Units {
    /// Their traces (events, accesses); `lanes` is the whole warp's, indexed by lane.
    pub(crate) traces: Vec<WarpTrace>,
    /// What each one is.
    pub(crate) info: Vec<UnitInfo>,
    /// Per unit and event, the warp event it came from.
    pub(crate) orig: Vec<Vec<u32>>,
    /// Per agent, its unit.
    pub(crate) agent_unit: Vec<u32>,
    /// Per agent, the units (and their events) that issue it.
    pub(crate) issuers: Vec<Vec<(u32, u32)>>,
    /// Per agent, how its copies complete.
    pub(crate) done: Vec<AgentDone>,
    /// Lanes of each warp.
    pub(crate) warp_lanes: Vec<u32>,
}

impl Units {
    /// The unit as people read it: `warp 3`, `warp 3 lane 0`, `warp 3 lanes 1-31`, or the
    /// copies of a statement.
    pub(crate) fn name(&self, u: u32) -> String {
        let i = &self.info[u as usize];
        let lanes = lanes_text(i.mask);
        match i.agent {
            Some(a) if self.done[a as usize] == super::skeleton::AgentDone::Wgmma => {
                format!("the wgmma operand reads of warp {} {}", i.warp, lanes)
            }
            Some(_) => format!("the asynchronous copies of warp {} {}", i.warp, lanes),
            None if i.mask.count_ones() == self.warp_lanes[i.warp as usize] => format!("warp {}", i.warp),
            None => format!("warp {} {}", i.warp, lanes),
        }
    }
}

/// `lane 0`, `lanes 1-31`, `lanes 0, 4`.
fn lanes_text(mask: u32) -> String {
    let ls: Vec<u32> = (0..32).filter(|l| mask & (1 << l) != 0).collect();
    match ls.as_slice() {
        [l] => format!("lane {l}"),
        [a, .., b] if (b - a + 1) as usize == ls.len() => format!("lanes {a}-{b}"),
        _ => format!(
            "lanes {}",
            ls.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The lane classes of a warp: lanes in the same class are in the mask of the same events.
fn classes(t: &WarpTrace) -> Vec<u32> {
    let n = t.lanes.len() as u32;
    let full = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
    let partial: Vec<u32> = t.events.iter().map(|e| e.mask & full).filter(|&m| m != full).collect();
    if partial.is_empty() {
        return vec![full];
    }
    let mut by_sig: Vec<(Vec<bool>, u32)> = vec![];
    for l in 0..n {
        let sig: Vec<bool> = partial.iter().map(|m| m & (1 << l) != 0).collect();
        match by_sig.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, m)) => *m |= 1 << l,
            None => by_sig.push((sig, 1 << l)),
        }
    }
    by_sig.into_iter().map(|(_, m)| m).collect()
}

/// The per-lane copy lists of `lanes`, intersected (a unit waits only for what all its lanes
/// wait for).
fn common(lists: &[(u8, Vec<AgentIdx>)], mask: u32) -> Vec<AgentIdx> {
    let mut mine = lists.iter().filter(|(l, _)| mask & (1 << l) != 0).map(|(_, v)| v);
    let Some(first) = mine.next() else { return vec![] };
    let mut out = first.clone();
    for v in mine {
        out.retain(|a| v.contains(a));
    }
    out
}

/// A unit's own copy of an event (per-lane lists cut to its lanes).
fn unit_event(e: &Event, mask: u32) -> Event {
    let op = e.op.as_ref().map(|op| match &**op {
        AsyncEv::WaitGroup { done } => Rc::new(AsyncEv::WaitGroup {
            done: vec![(mask.trailing_zeros() as u8, common(done, mask))],
        }),
        AsyncEv::ArriveOnCopies { bar, noinc, copies } => Rc::new(AsyncEv::ArriveOnCopies {
            bar: *bar,
            noinc: *noinc,
            copies: vec![(mask.trailing_zeros() as u8, common(copies, mask))],
        }),
        _ => op.clone(),
    });
    Event {
        mask: e.mask & mask,
        op,
        ..e.clone()
    }
}

/// Splits the warps into units and adds one unit per agent.
pub(crate) fn split(warps: Vec<WarpTrace>, agents: Vec<Agent>) -> Units {
    let mut out = Units::default();
    let mut issue_at: HashMap<(u32, u32), Vec<(u32, u32)>> = HashMap::new();
    for (w, t) in warps.into_iter().enumerate() {
        let cls = classes(&t);
        out.warp_lanes.push(t.lanes.len() as u32);
        let whole = cls.len() == 1;
        for mask in cls {
            let u = out.traces.len() as u32;
            let mut trace = WarpTrace {
                lanes: t.lanes.clone(),
                ..WarpTrace::default()
            };
            let mut orig = vec![];
            // Segment of the warp → segment of the unit.
            let mut seg_of = Vec::with_capacity(t.events.len() + 1);
            for (i, e) in t.events.iter().enumerate() {
                seg_of.push(trace.events.len() as u32);
                if e.mask & mask != 0 {
                    if let Some(AsyncEv::Issue { agent }) = e.op.as_deref() {
                        issue_at
                            .entry((w as u32, *agent))
                            .or_default()
                            .push((u, trace.events.len() as u32));
                    }
                    trace.events.push(unit_event(e, mask));
                    orig.push(i as u32);
                }
            }
            seg_of.push(trace.events.len() as u32);
            for a in t.conc.iter().filter(|a| mask & (1 << a.lane) != 0) {
                trace.conc.push(super::skeleton::ConcAccess {
                    seg: seg_of[a.seg as usize],
                    ..*a
                });
            }
            for a in t.sym.iter().filter(|a| mask & (1 << a.lane) != 0) {
                let mut a = a.clone();
                a.seg = seg_of[a.seg as usize];
                trace.sym.push(a);
            }
            out.traces.push(trace);
            out.orig.push(orig);
            out.info.push(UnitInfo {
                warp: w as u32,
                mask,
                agent: None,
                weight: if whole { WARP } else { mask.count_ones() },
            });
        }
    }
    for (ai, a) in agents.into_iter().enumerate() {
        let u = out.traces.len() as u32;
        let start = Event {
            kind: EvKind::Async,
            id: 0,
            count: 0,
            label: a.label,
            span: a.span,
            mask: a.mask,
            op: Some(Rc::new(AsyncEv::AgentStart { agent: ai as u32 })),
        };
        let done = Event {
            op: Some(Rc::new(AsyncEv::AgentDone { agent: ai as u32 })),
            ..start.clone()
        };
        let lanes = out
            .info
            .iter()
            .position(|i| i.warp == a.warp && i.agent.is_none())
            .map(|i| out.traces[i].lanes.clone())
            .unwrap_or_default();
        out.traces.push(WarpTrace {
            lanes,
            events: vec![start, done],
            conc: a.conc,
            sym: a.sym,
        });
        out.orig.push(vec![a.event, a.event]);
        out.info.push(UnitInfo {
            warp: a.warp,
            mask: a.mask,
            agent: Some(ai as u32),
            weight: 0,
        });
        out.agent_unit.push(u);
        out.done.push(a.done);
        out.issuers
            .push(issue_at.remove(&(a.warp, ai as u32)).unwrap_or_default());
    }
    out
}

/// The units with only the accesses of the segments each got to (`reached[u]` segments):
/// the execution a stuck schedule is.
pub(crate) fn reached(units: &Units, reached: impl Fn(u32) -> u32) -> Units {
    let mut out = units.clone();
    for (u, t) in out.traces.iter_mut().enumerate() {
        let n = reached(u as u32);
        t.conc.retain(|a| a.seg < n);
        t.sym.retain(|a| a.seg < n);
    }
    out
}
