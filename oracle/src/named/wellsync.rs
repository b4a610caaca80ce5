//! The checks that make the generations of the simulated schedule ([`super::sim`]) hold in
//! every schedule (WEFT's WELLSYNC, with arrive-only generations handled explicitly): deadlock,
//! too many participants, arrive-only completion, unsafe recycling. (A count mismatch stops the
//! simulation itself.)

use super::hb::Hb;
use super::sim::{Gen, Sim};
use super::skeleton::{EvKind, WarpTrace, WARP};
use crate::ir::{Kernel, Label, Span};
use crate::report::{SyncDefect, SyncDefectKind};
use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::HashSet;

/// Whether program point `(w, s)` (the start of segment `s` of warp `w`) is ordered after the
/// completion of generation `g`: after a sync of `g` if it has one (only a syncer's later code
/// is after completion), otherwise after every arrival of `g` (B6 of the digest).
fn after_completion(hb: &Hb, g: &Gen, w: u32, s: u32) -> bool {
    let vc = hb.at(w, s);
    let pairs = g.regs.iter().zip(&g.synced);
    if g.synced.iter().any(|&x| x) {
        pairs.filter(|(_, &sy)| sy).any(|(&(u, e), _)| vc[u as usize] > e)
    } else {
        pairs.map(|(r, _)| r).all(|&(u, e)| vc[u as usize] > e)
    }
}

/// Label and span of event `e` of warp `w`.
fn ev(warps: &[WarpTrace], (w, e): (u32, u32)) -> (Label, Span) {
    let x = &warps[w as usize].events[e as usize];
    (x.label, x.span)
}

/// Deadlock (or too many participants) when the schedule got stuck.
pub(crate) fn stuck(k: &Kernel, warps: &[WarpTrace], sim: &Sim, hb: &Hb) -> Vec<SyncDefect> {
    let mut out = vec![];
    // Too many participants: a warp waits in an open generation it could have joined the
    // previous generation of, because nothing orders it after that generation's completion.
    let mut explained = HashSet::new();
    for p in &sim.pending {
        let Some(prev) = sim.gens.iter().rev().find(|g| g.id == p.id) else {
            continue;
        };
        if p.regs.iter().any(|&(w, e)| !after_completion(hb, prev, w, e)) {
            let mut labels = vec![];
            let mut spans = vec![];
            for &r in prev.regs.iter().chain(&p.regs) {
                let (l, s) = ev(warps, r);
                if !labels.contains(&l) {
                    labels.push(l);
                    spans.push(s);
                }
            }
            let registered = (prev.regs.len() + p.regs.len()) as u32 * WARP;
            // More distinct warps than the count admits is a design error in the count; the same
            // warps registering again before the generation they joined completed is recycling.
            let distinct: HashSet<u32> = prev.regs.iter().chain(&p.regs).map(|r| r.0).collect();
            if distinct.len() as u32 * WARP <= p.count {
                let (l1, s1) = ev(warps, prev.regs[0]);
                let (l2, s2) = ev(warps, p.regs[0]);
                let early: Vec<String> = prev.regs.iter().map(|r| format!("warp {}", r.0)).collect();
                out.push(SyncDefect {
                    kind: SyncDefectKind::UnsafeRecycling { id: p.id },
                    labels: vec![l1, l2],
                    spans: vec![s1, s2],
                    trace: vec![
                        format!(
                            "generation {} of barrier {} is completed by {} registering again before the generation it joined completed",
                            prev.seq,
                            p.id,
                            early.join(", ")
                        ),
                        format!(
                            "so warp {} at {} is left in a generation that never completes",
                            p.regs[0].0,
                            k.loc(s2)
                        ),
                    ],
                });
                explained.extend(p.regs.iter().map(|r| r.0));
                continue;
            }
            let who: Vec<String> = prev
                .regs
                .iter()
                .chain(&p.regs)
                .map(|r| format!("warp {}", r.0))
                .collect();
            out.push(SyncDefect {
                kind: SyncDefectKind::TooManyParticipants { count: p.count, registered },
                labels,
                spans,
                trace: vec![format!(
                    "{} threads ({}) can register concurrently on barrier {} whose count is {}; the warps left over wait forever",
                    registered,
                    who.join(", "),
                    p.id,
                    p.count
                )],
            });
            explained.extend(p.regs.iter().map(|r| r.0));
        }
    }
    let waits: Vec<(u32, Label)> = sim
        .blocked
        .iter()
        .filter(|(w, _)| !explained.contains(w))
        .map(|&r| (r.0, ev(warps, r).0))
        .collect();
    if waits.is_empty() {
        return out;
    }
    // The wait-for graph: a blocked warp waits for every unfinished warp that will still
    // register on its barrier id.
    let mut g = DiGraph::<u32, ()>::new();
    let nodes: Vec<_> = (0..warps.len() as u32).map(|w| g.add_node(w)).collect();
    for &(w, e) in &sim.blocked {
        let id = warps[w as usize].events[e as usize].id;
        for (u, tr) in warps.iter().enumerate() {
            let from = sim.done_events[u] as usize + usize::from(u as u32 == w);
            if tr
                .events
                .iter()
                .skip(from)
                .any(|x| x.kind != EvKind::Warp && x.id == id)
            {
                g.add_edge(nodes[w as usize], nodes[u], ());
            }
        }
    }
    let mut trace = vec![];
    for &(w, e) in &sim.blocked {
        let x = &warps[w as usize].events[e as usize];
        trace.push(format!(
            "warp {w} waits at bar.sync {}, {} ({})",
            x.id,
            x.count,
            k.loc(x.span)
        ));
    }
    for scc in tarjan_scc(&g) {
        if scc.len() > 1 {
            let ws: Vec<String> = scc.iter().map(|n| format!("warp {}", g[*n])).collect();
            trace.push(format!("cyclic wait among {}", ws.join(", ")));
        }
    }
    for p in &sim.pending {
        trace.push(format!(
            "barrier {} has {} of {} threads registered and no further participant",
            p.id,
            p.regs.len() as u32 * WARP,
            p.count
        ));
    }
    let spans = sim.blocked.iter().map(|&r| ev(warps, r).1).collect();
    out.push(SyncDefect {
        kind: SyncDefectKind::Deadlock { waits: waits.clone() },
        labels: waits.iter().map(|w| w.1).collect(),
        spans,
        trace,
    });
    out
}

/// WELLSYNC on a schedule that finished: every registrant of generation k+1 of an id must be
/// ordered after the completion of generation k; generations completed by arrivals alone are
/// reported too.
pub(crate) fn check(k: &Kernel, warps: &[WarpTrace], sim: &Sim, hb: &Hb) -> Vec<SyncDefect> {
    let mut out = vec![];
    let mut last: [Option<usize>; 16] = [None; 16];
    let mut seen_arrive_only = HashSet::new();
    let mut seen_recycle = HashSet::new();
    for (gi, g) in sim.gens.iter().enumerate() {
        if !g.synced.iter().any(|&s| s) {
            let labels: Vec<Label> = g.regs.iter().map(|&r| ev(warps, r).0).collect();
            let mut key = labels.clone();
            key.sort();
            key.dedup();
            if seen_arrive_only.insert(key.clone()) {
                let spans = key.iter().map(|l| span_of(warps, *l)).collect();
                out.push(SyncDefect {
                    kind: SyncDefectKind::ArriveOnly,
                    labels: key,
                    spans,
                    trace: vec![format!(
                        "generation {} of barrier {} is completed by bar.arrive alone (warps {}); it orders nothing",
                        g.seq,
                        g.id,
                        g.regs.iter().map(|r| r.0.to_string()).collect::<Vec<_>>().join(", ")
                    )],
                });
            }
        }
        if let Some(pi) = last[g.id as usize] {
            let prev = &sim.gens[pi];
            for &(w, e) in &g.regs {
                if after_completion(hb, prev, w, e) {
                    continue;
                }
                let (l2, s2) = ev(warps, (w, e));
                let (l1, s1) = ev(warps, prev.regs[prev.synced.iter().position(|&s| s).unwrap_or(0)]);
                if !seen_recycle.insert((g.id, l1, l2)) {
                    continue;
                }
                out.push(SyncDefect {
                    kind: SyncDefectKind::UnsafeRecycling { id: g.id },
                    labels: vec![l1, l2],
                    spans: vec![s1, s2],
                    trace: vec![
                        format!(
                            "generation {} of barrier {} completes with warps {} (first at {})",
                            prev.seq,
                            g.id,
                            prev.regs.iter().map(|r| r.0.to_string()).collect::<Vec<_>>().join(", "),
                            k.loc(s1)
                        ),
                        format!(
                            "warp {w} registers for generation {} at {} without being ordered after that completion, so in another schedule it joins generation {}",
                            g.seq,
                            k.loc(s2),
                            prev.seq
                        ),
                    ],
                });
            }
        }
        last[g.id as usize] = Some(gi);
    }
    out
}

fn span_of(warps: &[WarpTrace], l: Label) -> Span {
    warps
        .iter()
        .flat_map(|w| w.events.iter())
        .find(|e| e.label == l)
        .map(|e| e.span)
        .unwrap_or(Span::DUMMY)
}
