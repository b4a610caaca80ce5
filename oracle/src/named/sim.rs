//! One simulated schedule of the barrier events: the warps run round-robin, each until it
//! blocks at a sync, and the registrations form barrier generations (what WELLSYNC and
//! happens-before are computed over).

use super::skeleton::{EvKind, WarpTrace, WARP};
use crate::ir::Kernel;
use crate::report::{SyncDefect, SyncDefectKind};

/// Marks events that belong to no generation (warp barriers, unfinished registrations).
pub(crate) const NO_GEN: u32 = u32::MAX;

/// One completed generation of a barrier (a dynamic barrier).
#[derive(Clone, Debug)]
pub(crate) struct Gen {
    /// Barrier id.
    pub(crate) id: u32,
    /// 1-based generation number of this id.
    pub(crate) seq: u32,
    /// Registrants: (warp, event index), in registration order.
    pub(crate) regs: Vec<(u32, u32)>,
    /// Which registrants synced (the others arrived).
    pub(crate) synced: Vec<bool>,
}

/// A generation still open when the schedule stopped.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    /// Barrier id.
    pub(crate) id: u32,
    /// Thread count.
    pub(crate) count: u32,
    /// Registrants so far.
    pub(crate) regs: Vec<(u32, u32)>,
}

/// The simulated schedule.
#[derive(Debug, Default)]
pub(crate) struct Sim {
    /// Completed generations in completion order (a topological order of the dependences).
    pub(crate) gens: Vec<Gen>,
    /// For every warp and event: its generation index, or [`NO_GEN`].
    pub(crate) ev_gen: Vec<Vec<u32>>,
    /// Number of events each warp got past.
    pub(crate) done_events: Vec<u32>,
    /// Warps blocked at a sync (warp, event index) when no warp could move.
    pub(crate) blocked: Vec<(u32, u32)>,
    /// Open generations at the end.
    pub(crate) pending: Vec<Pending>,
    /// A count mismatch that stopped the schedule.
    pub(crate) error: Option<SyncDefect>,
}

/// Runs the warps round-robin, each until it blocks at a sync, forming generations.
pub(crate) fn simulate(k: &Kernel, warps: &[WarpTrace]) -> Sim {
    let nw = warps.len();
    let mut sim = Sim {
        ev_gen: warps.iter().map(|w| vec![NO_GEN; w.events.len()]).collect(),
        done_events: vec![0; nw],
        ..Sim::default()
    };
    let mut blocked = vec![false; nw];
    let mut open: Vec<Option<Pending>> = vec![None; 16];
    let mut seqs = [0u32; 16];
    loop {
        let mut progress = false;
        for w in 0..nw {
            let evs = &warps[w].events;
            while !blocked[w] && (sim.done_events[w] as usize) < evs.len() {
                let ei = sim.done_events[w];
                let e = &evs[ei as usize];
                progress = true;
                if e.kind == EvKind::Warp {
                    sim.done_events[w] += 1;
                    continue;
                }
                let p = open[e.id as usize].get_or_insert(Pending {
                    id: e.id,
                    count: e.count,
                    regs: vec![],
                });
                if p.count != e.count {
                    let (fw, fe) = p.regs[0];
                    let first = &warps[fw as usize].events[fe as usize];
                    sim.error = Some(SyncDefect {
                        kind: SyncDefectKind::CountMismatch { counts: (p.count, e.count) },
                        labels: vec![first.label, e.label],
                        spans: vec![first.span, e.span],
                        trace: vec![format!(
                            "warp {fw} registers on barrier {} with count {} at {}; warp {w} joins the same generation with count {} at {}",
                            e.id,
                            p.count,
                            k.loc(first.span),
                            e.count,
                            k.loc(e.span)
                        )],
                    });
                    return sim;
                }
                p.regs.push((w as u32, ei));
                if e.kind == EvKind::Sync {
                    blocked[w] = true;
                } else {
                    sim.done_events[w] += 1;
                }
                if p.regs.len() as u64 * WARP as u64 >= p.count as u64 {
                    let p = open[e.id as usize].take().unwrap_or(Pending {
                        id: e.id,
                        count: e.count,
                        regs: vec![],
                    });
                    seqs[e.id as usize] += 1;
                    let gi = sim.gens.len() as u32;
                    let mut synced = vec![];
                    for &(u, ue) in &p.regs {
                        sim.ev_gen[u as usize][ue as usize] = gi;
                        let s = warps[u as usize].events[ue as usize].kind == EvKind::Sync;
                        if s {
                            blocked[u as usize] = false;
                            sim.done_events[u as usize] = ue + 1;
                        }
                        synced.push(s);
                    }
                    sim.gens.push(Gen {
                        id: p.id,
                        seq: seqs[p.id as usize],
                        regs: p.regs,
                        synced,
                    });
                }
            }
        }
        if !progress {
            break;
        }
    }
    sim.blocked = (0..nw)
        .filter(|&w| blocked[w])
        .map(|w| (w as u32, sim.done_events[w]))
        .collect();
    sim.pending = open.into_iter().flatten().collect();
    sim
}
