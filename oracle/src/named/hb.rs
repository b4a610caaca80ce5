//! Happens-before between event-delimited segments, as vector clocks over the units.
//!
//! `at(w, s)[u] = n` means segments `0..n` of unit `u` happen before the start of segment `s`
//! of unit `w` (segment `s` runs between the unit's events `s-1` and `s`). Clocks are computed
//! over the generations of the simulated schedule in completion order (a topological order of
//! their dependences): a generation's clock joins its contributors' clocks at their events and
//! its predecessor's (an mbarrier phase includes the phases before it); the events that take it
//! (syncers of a named barrier, waiters of a phase, the start of copies, group waits) join it,
//! arrivers do not (nothing orders an arriver's later code after the completion). This is
//! WEFT's latest-happens-before / earliest-happens-after computation in vector form.

use super::sim::{Sim, NO_GEN};
use super::skeleton::WarpTrace;

/// Vector clocks of every segment start, and how far each unit's own lanes are ordered.
#[derive(Debug, Default)]
pub(crate) struct Hb {
    /// Number of units.
    nw: usize,
    /// Per unit: clocks of its segments, flattened (`segments × nw`).
    vc: Vec<Vec<u32>>,
    /// Per unit and segment: the unit's own segments `0..n` that every one of its lanes has
    /// seen (through a generation it contributed to and took): lanes of one unit are ordered
    /// only that way.
    own: Vec<Vec<u32>>,
    /// Clock of every generation.
    joins: Vec<Vec<u32>>,
}

impl Hb {
    /// Clock at the start of segment `s` of unit `w`.
    pub(crate) fn at(&self, w: u32, s: u32) -> &[u32] {
        let i = s as usize * self.nw;
        &self.vc[w as usize][i..i + self.nw]
    }
    /// Number of segments of unit `w` that exist (the unit got that far).
    pub(crate) fn segments(&self, w: u32) -> u32 {
        (self.vc[w as usize].len() / self.nw.max(1)) as u32
    }
    /// Whether the end of segment `s1` of `w1` (its event `s1`) happens before the start of
    /// segment `s2` of `w2` (for one unit: its program order).
    pub(crate) fn before(&self, (w1, s1): (u32, u32), (w2, s2): (u32, u32)) -> bool {
        if w1 == w2 {
            return s1 < s2;
        }
        s2 < self.segments(w2) && self.at(w2, s2)[w1 as usize] > s1
    }
    /// The segments `[lo, hi)` of unit `u != w` that may run concurrently with segment `s` of `w`.
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
    /// Whether every lane of unit `w` has seen its segment `s` by the start of segment `f`.
    pub(crate) fn lanes_saw(&self, w: u32, s: u32, f: u32) -> bool {
        self.own[w as usize].get(f as usize).is_some_and(|&n| n > s)
    }
    /// The segments `[lo, hi)` of unit `w` whose accesses by other lanes of `w` are unordered
    /// with segment `s`.
    pub(crate) fn epoch_range(&self, w: u32, s: u32) -> (u32, u32) {
        let own = &self.own[w as usize];
        let lo = own[s as usize].min(s);
        let hi = own.partition_point(|&x| x <= s) as u32;
        (lo, hi.max(s + 1))
    }
}

/// Computes the clocks of every reached segment.
pub(crate) fn compute(warps: &[WarpTrace], sim: &Sim) -> Hb {
    let nw = warps.len();
    let mut hb = Hb {
        nw,
        vc: vec![vec![0; nw]; nw],
        own: vec![vec![0]; nw],
        joins: Vec::with_capacity(sim.gens.len()),
    };
    for g in &sim.gens {
        let mut join = match g.prev {
            Some(p) => hb.joins[p as usize].clone(),
            None => vec![0u32; nw],
        };
        for &(w, e) in &g.regs {
            advance(&mut hb, sim, w, e);
            let vc = hb.at(w, e);
            for (j, x) in join.iter_mut().enumerate() {
                *x = (*x).max(vc[j]);
            }
            join[w as usize] = join[w as usize].max(e + 1);
        }
        hb.joins.push(join);
    }
    for w in 0..nw {
        let upto = sim.done_events[w];
        advance(&mut hb, sim, w as u32, upto);
    }
    hb
}

/// Extends unit `w`'s clocks up to the start of segment `upto`.
fn advance(hb: &mut Hb, sim: &Sim, w: u32, upto: u32) {
    let nw = hb.nw;
    let wi = w as usize;
    while hb.segments(w) <= upto {
        let e = hb.segments(w) - 1; // the event that ends the last known segment
        let start = e as usize * nw;
        let mut next: Vec<u32> = hb.vc[wi][start..start + nw].to_vec();
        next[wi] = e + 1;
        let mut own = hb.own[wi][e as usize];
        let gi = sim.takes[wi][e as usize];
        if gi != NO_GEN {
            if let Some(j) = hb.joins.get(gi as usize) {
                for (x, y) in next.iter_mut().zip(j) {
                    *x = (*x).max(*y);
                }
                own = own.max(j[wi]);
            }
        }
        hb.vc[wi].extend_from_slice(&next);
        hb.own[wi].push(own);
    }
}
