//! The checks that make the generations of the simulated schedule ([`super::sim`]) hold in
//! every schedule (WEFT's WELLSYNC, with arrive-only generations handled explicitly): deadlock,
//! too many participants, arrive-only completion, unsafe recycling. (A count mismatch stops the
//! simulation itself.)

use super::hb::Hb;
use super::pipeline::{AsyncEv, Mbarriers, PhaseSel};
use super::sim::{Gen, GenKind, Sim};
use super::skeleton::{EvKind, WarpTrace};
use super::units::Units;
use crate::ir::{Kernel, Label, Span};
use crate::report::{SyncDefect, SyncDefectKind};
use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::{HashMap, HashSet};

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

/// Whether a generation is a barrier's (named or `__syncwarp`), which WELLSYNC is about.
fn is_barrier(g: &Gen) -> bool {
    matches!(g.kind, GenKind::Named | GenKind::Warp)
}

/// The key of a pending generation's barrier as the generations carry it.
fn same_barrier(g: &Gen, pending_id: u32) -> bool {
    match g.kind {
        GenKind::Named => g.id == pending_id,
        GenKind::Warp => g.id + 16 == pending_id,
        _ => false,
    }
}

/// Deadlock (or too many participants) when the schedule got stuck.
pub(crate) fn stuck(k: &Kernel, units: &Units, mbars: &Mbarriers, sim: &Sim, hb: &Hb) -> Vec<SyncDefect> {
    let warps = &units.traces;
    let weight = |w: u32| units.info[w as usize].weight;
    let mut out = vec![];
    // Too many participants: a warp waits in an open generation it could have joined the
    // previous generation of, because nothing orders it after that generation's completion.
    let mut explained = HashSet::new();
    for p in &sim.pending {
        let Some(prev) = sim.gens.iter().rev().find(|g| same_barrier(g, p.id)) else {
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
            let registered: u32 = prev.regs.iter().chain(&p.regs).map(|r| weight(r.0)).sum();
            // More distinct warps than the count admits is a design error in the count; the same
            // warps registering again before the generation they joined completed is recycling.
            let distinct: HashSet<u32> = prev.regs.iter().chain(&p.regs).map(|r| r.0).collect();
            if distinct.iter().map(|&w| weight(w)).sum::<u32>() <= p.count {
                let (l1, s1) = ev(warps, prev.regs[0]);
                let (l2, s2) = ev(warps, p.regs[0]);
                let early: Vec<String> = prev.regs.iter().map(|r| units.name(r.0)).collect();
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
                            "so {} at {} is left in a generation that never completes",
                            units.name(p.regs[0].0),
                            k.loc(s2)
                        ),
                    ],
                });
                explained.extend(p.regs.iter().map(|r| r.0));
                continue;
            }
            let who: Vec<String> = prev.regs.iter().chain(&p.regs).map(|r| units.name(r.0)).collect();
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
        .map(|&r| (units.info[r.0 as usize].warp, ev(warps, r).0))
        .collect();
    if waits.is_empty() {
        return out;
    }
    // The wait-for graph: a blocked unit waits for every unfinished unit that will still
    // register on its barrier, or still take part in its mbarrier.
    let mut g = DiGraph::<u32, ()>::new();
    let nodes: Vec<_> = (0..warps.len() as u32).map(|w| g.add_node(w)).collect();
    for &(w, e) in &sim.blocked {
        let x = &warps[w as usize].events[e as usize];
        let bar = x.op.as_ref().and_then(|o| o.bar());
        for (u, tr) in warps.iter().enumerate() {
            let from = sim.done_events[u] as usize + usize::from(u as u32 == w);
            let will = tr.events.iter().skip(from).any(|y| match (bar, &y.op) {
                (Some(b), Some(op)) => op.bar() == Some(b) && !matches!(**op, AsyncEv::Wait { .. }),
                (None, None) => y.kind == x.kind || (y.kind != EvKind::Warp && x.kind != EvKind::Warp && y.id == x.id),
                _ => false,
            });
            if will {
                g.add_edge(nodes[w as usize], nodes[u], ());
            }
        }
    }
    let mut trace = vec![];
    for &(w, e) in &sim.blocked {
        trace.push(waits_at(k, units, mbars, sim, w, e));
    }
    for scc in tarjan_scc(&g) {
        if scc.len() > 1 {
            let ws: Vec<String> = scc.iter().map(|n| units.name(g[*n])).collect();
            trace.push(format!("cyclic wait among {}", ws.join(", ")));
        }
    }
    for p in &sim.pending {
        let registered: u32 = p.regs.iter().map(|r| weight(r.0)).sum();
        trace.push(format!(
            "barrier {} has {} of {} threads registered and no further participant",
            p.id, registered, p.count
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
pub(crate) fn check(k: &Kernel, units: &Units, sim: &Sim, hb: &Hb) -> Vec<SyncDefect> {
    let warps = &units.traces;
    let mut out = vec![];
    let mut last: HashMap<(bool, u32), usize> = HashMap::new();
    let mut seen_arrive_only = HashSet::new();
    let mut seen_recycle = HashSet::new();
    for (gi, g) in sim.gens.iter().enumerate() {
        if !is_barrier(g) {
            continue;
        }
        let key = (g.kind == GenKind::Warp, g.id);
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
                        "generation {} of barrier {} is completed by bar.arrive alone ({}); it orders nothing",
                        g.seq,
                        g.id,
                        g.regs.iter().map(|r| units.name(r.0)).collect::<Vec<_>>().join(", ")
                    )],
                });
            }
        }
        if let Some(&pi) = last.get(&key) {
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
                            "generation {} of barrier {} completes with {} (first at {})",
                            prev.seq,
                            g.id,
                            prev.regs.iter().map(|r| units.name(r.0)).collect::<Vec<_>>().join(", "),
                            k.loc(s1)
                        ),
                        format!(
                            "{} registers for generation {} at {} without being ordered after that completion, so in another schedule it joins generation {}",
                            units.name(w),
                            g.seq,
                            k.loc(s2),
                            prev.seq
                        ),
                    ],
                });
            }
        }
        last.insert(key, gi);
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

/// What a blocked unit waits for, in words.
fn waits_at(k: &Kernel, units: &Units, mbars: &Mbarriers, sim: &Sim, w: u32, e: u32) -> String {
    let x = &units.traces[w as usize].events[e as usize];
    let who = units.name(w);
    match x.op.as_deref() {
        Some(AsyncEv::Wait { bar, phase }) => {
            let h = &sim.mbars[*bar as usize];
            let want = match phase {
                PhaseSel::Parity(p) => format!("a phase of parity {p}"),
                PhaseSel::Token(_) => "the phase its arrival counted in".into(),
            };
            format!(
                "{who} waits on {} for {want} ({}); {} phase(s) completed, phase {} still expects {} arrival(s) and {} transaction byte(s)",
                mbars.name(k, *bar),
                k.loc(x.span),
                h.phases.len(),
                h.phases.len(),
                h.pending,
                h.tx
            )
        }
        Some(AsyncEv::WaitGroup { .. }) => format!("{who} waits for its cp.async groups ({})", k.loc(x.span)),
        Some(op) => format!("{who} is stopped at {} ({})", op.describe(k, mbars), k.loc(x.span)),
        None if x.kind == EvKind::Warp => format!("{who} waits at __syncwarp ({})", k.loc(x.span)),
        None => format!("{who} waits at bar.sync {}, {} ({})", x.id, x.count, k.loc(x.span)),
    }
}
