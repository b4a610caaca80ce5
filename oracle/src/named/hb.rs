//! Happens-before between barrier-delimited segments, as vector clocks over the warps.
//!
//! `at(w, s)[u] = n` means segments `0..n` of warp `u` happen before the start of segment `s`
//! of warp `w` (segment `s` runs between the warp's events `s-1` and `s`). Clocks are computed
//! over the barrier dependence graph (one node per completed generation) in topological order:
//! a generation's clock joins its registrants' clocks; syncers take it, arrivers do not (nothing
//! orders an arriver's later code after the completion). This is WEFT's latest-happens-before /
//! earliest-happens-after computation in vector form.

use super::sim::{Sim, NO_GEN};
use super::skeleton::{EvKind, WarpTrace};
use petgraph::algo::toposort;
use petgraph::graph::{DiGraph, NodeIndex};

/// Vector clocks of every segment start, and intra-warp epochs.
#[derive(Debug, Default)]
pub(crate) struct Hb {
    /// Number of warps.
    nw: usize,
    /// Per warp: clocks of its segments, flattened (`segments × nw`).
    vc: Vec<Vec<u32>>,
    /// Per warp and segment: number of syncs and warp barriers before it (lanes of one warp are
    /// ordered only by those; an arrive does not order the lanes of its own warp).
    epoch: Vec<Vec<u32>>,
}

impl Hb {
    /// Clock at the start of segment `s` of warp `w`.
    pub(crate) fn at(&self, w: u32, s: u32) -> &[u32] {
        let i = s as usize * self.nw;
        &self.vc[w as usize][i..i + self.nw]
    }
    /// Number of segments of warp `w` that exist (the warp got that far).
    pub(crate) fn segments(&self, w: u32) -> u32 {
        (self.vc[w as usize].len() / self.nw.max(1)) as u32
    }
    /// The segments `[lo, hi)` of warp `u != w` that may run concurrently with segment `s` of `w`.
    pub(crate) fn range(&self, w: u32, s: u32, u: u32) -> (u32, u32) {
        let lo = self.at(w, s)[u as usize];
        let n = self.segments(u);
        // First segment of u whose start is after segment s of w (clocks are monotone).
        let (mut a, mut b) = (lo, n);
        while a < b {
            let m = a + (b - a) / 2;
            if self.at(u, m)[w as usize] > s {
                b = m;
            } else {
                a = m + 1;
            }
        }
        (lo, a)
    }
    /// The segments `[lo, hi)` of warp `w` in the same lane epoch as segment `s`.
    pub(crate) fn epoch_range(&self, w: u32, s: u32) -> (u32, u32) {
        let ep = &self.epoch[w as usize];
        let e = ep[s as usize];
        let lo = ep.partition_point(|&x| x < e) as u32;
        let hi = ep.partition_point(|&x| x <= e) as u32;
        (lo, hi)
    }
}

/// The barrier dependence graph: generation `a → b` when some warp syncs in `a` and later
/// registers in `b` (it can register in `b` only after `a` completed). Consecutive arrivals
/// impose nothing: an arriver does not wait for completion.
fn dependence_graph(warps: &[WarpTrace], sim: &Sim) -> DiGraph<u32, ()> {
    let mut g = DiGraph::with_capacity(sim.gens.len(), sim.gens.len() * 2);
    for i in 0..sim.gens.len() {
        g.add_node(i as u32);
    }
    for (w, tr) in warps.iter().enumerate() {
        let mut last_sync = NO_GEN;
        for (e, &gi) in sim.ev_gen[w].iter().enumerate() {
            if gi == NO_GEN {
                continue;
            }
            if last_sync != NO_GEN && last_sync != gi {
                g.update_edge(NodeIndex::new(last_sync as usize), NodeIndex::new(gi as usize), ());
            }
            if tr.events[e].kind == EvKind::Sync {
                last_sync = gi;
            }
        }
    }
    g
}

/// Computes the clocks of every reached segment. Fails only if the dependence graph has a
/// cycle (impossible for a schedule that was actually simulated).
pub(crate) fn compute(warps: &[WarpTrace], sim: &Sim) -> Result<Hb, ()> {
    let nw = warps.len();
    let g = dependence_graph(warps, sim);
    let order = toposort(&g, None).map_err(|_| ())?;
    let mut hb = Hb {
        nw,
        vc: vec![vec![0; nw]; nw],
        epoch: vec![vec![0]; nw],
    };
    let mut joins: Vec<Vec<u32>> = vec![vec![]; sim.gens.len()];
    for n in order {
        let gi = g[n] as usize;
        let mut join = vec![0u32; nw];
        for &(w, e) in &sim.gens[gi].regs {
            advance(&mut hb, warps, sim, &joins, w, e);
            let vc = hb.at(w, e);
            for (j, x) in join.iter_mut().enumerate() {
                *x = (*x).max(vc[j]);
            }
            join[w as usize] = join[w as usize].max(e + 1);
        }
        joins[gi] = join;
    }
    for w in 0..nw {
        let upto = sim.done_events[w];
        advance(&mut hb, warps, sim, &joins, w as u32, upto);
    }
    Ok(hb)
}

/// Extends warp `w`'s clocks up to the start of segment `upto`.
fn advance(hb: &mut Hb, warps: &[WarpTrace], sim: &Sim, joins: &[Vec<u32>], w: u32, upto: u32) {
    let nw = hb.nw;
    let wi = w as usize;
    while hb.segments(w) <= upto {
        let e = hb.segments(w) - 1; // the event that ends the last known segment
        let start = e as usize * nw;
        let mut next: Vec<u32> = hb.vc[wi][start..start + nw].to_vec();
        next[wi] = e + 1;
        let kind = warps[wi].events[e as usize].kind;
        if kind == EvKind::Sync {
            let gi = sim.ev_gen[wi][e as usize];
            if let Some(j) = joins.get(gi as usize) {
                for (x, y) in next.iter_mut().zip(j) {
                    *x = (*x).max(*y);
                }
            }
        }
        hb.vc[wi].extend_from_slice(&next);
        let ep = hb.epoch[wi][e as usize] + u32::from(kind != EvKind::Arrive);
        hb.epoch[wi].push(ep);
    }
}
