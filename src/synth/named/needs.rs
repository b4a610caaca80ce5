//! From races to placement requirements ("needs"), each a hard clause over the options that
//! order the race in its intended (lock-step) direction.
//!
//! A race whose accesses lie in different branches of a warp-role split (`if (warp == 0) {..}
//! else {..}`) is a *cross-role* race: only a producer/consumer channel orders it. Any other race
//! is *in-region*: a barrier between the accesses, executed by every warp involved (a
//! `__syncthreads` at a block-uniform position, or a sub-block `bar.sync` at a warp-uniform one).
//!
//! Lock-step order across roles: the `then` side before the `else` side, and for role loops with
//! equal trip counts iteration k of both sides before iteration k+1. A channel with sender
//! position p and receiver position q (both executed once per iteration of the aligned loops)
//! orders the sender side's iteration g before p with the receiver side's iteration g after q.
//! For a requirement "x in iteration k before y in iteration k + d" it imposes x(k) → y(k + s)
//! with s = [p before x] + [q after y]; it serves when s ≤ d, and it agrees with the lock-step
//! order only when s ≥ 0 (forward) or s ≥ 1 (backward, from the else side to the then side).

use super::guard::counter;
use super::roles::Roles;
use crate::synth::space::{clauses, key, RaceKey, Space};
use autosync_oracle::ir::{Kernel, Label};
use autosync_oracle::report::{IterRelation, Race};
use autosync_oracle::sdv::{Level, Uniformity};
use autosync_oracle::tree::{candidate_positions, LabelTree, Position, ScopeKind};
use std::collections::{BTreeMap, BTreeSet};

/// Which side of a channel must synchronize (the other may only arrive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The position in the `then` role.
    First,
    /// The position in the `else` role.
    Second,
}

/// A channel: one position in each role of a split, executed equally often, and its shift d:
/// with d > 0 the then-side end is guarded to skip the first d iterations of its role loop and
/// the else-side end to skip the last d (see `guard.rs`).
pub type ChanKey = (Position, Position, u32);

/// One hard clause: any of these options orders a race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Need {
    /// A barrier at any of these space positions (block-wide or sub-block sync).
    Sync(Vec<usize>),
    /// Any of these channels, with the given side synchronizing.
    Chan(Vec<(ChanKey, Side)>),
}

/// Why a race has no option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoOption {
    /// Every position between the accesses is lane-divergent or misses a racing warp.
    LaneDivergent,
    /// The accesses are in role loops whose trip counts differ.
    RoleLoops,
    /// A role loop's trip count is not known for the launch (a symbolic bound).
    UnknownTrips,
    /// No channel position pair executes equally often in both roles.
    NoMatchedPair,
}

/// A candidate channel endpoint.
#[derive(Clone, Debug)]
pub struct End {
    /// Where.
    pub pos: Position,
    /// Warps executing it.
    pub warps: Vec<u32>,
    /// Executions per warp.
    pub count: u64,
    post: u32,
    in_loop: bool,
    /// Directly in the aligned role loop's body (once per iteration; a guard can peel it).
    direct: bool,
}

/// A cross-role race, prepared for channel options.
#[derive(Clone, Debug)]
pub struct Cross {
    /// Then-side access.
    pub x: Label,
    /// Else-side access.
    pub y: Label,
    /// The aligned role loops (then side, else side), if both accesses are in one.
    pub loops: Option<(Label, Label)>,
    /// The shifts the role loops allow (counted loops; IDs cycling with the counters for 2).
    shiftable: Vec<u32>,
    ends_x: Vec<End>,
    ends_y: Vec<End>,
}

/// Shared facts for classifying races of one kernel.
pub(crate) struct Ctx<'a> {
    /// The kernel.
    pub k: &'a Kernel,
    /// Label tree.
    pub tree: LabelTree,
    /// Per-warp execution facts.
    pub roles: &'a Roles,
    /// Uniformity of positions.
    pub unif: &'a Uniformity,
    /// Block- and warp-uniform positions (sub-block and block-wide sync options).
    pub(crate) space: Space,
    /// Emittable candidate positions.
    pub cands: Vec<Position>,
}

impl Ctx<'_> {
    fn post(&self, l: Label) -> u32 {
        self.tree.get(l).post
    }

    fn blocks(&self, l: Label) -> Vec<Label> {
        self.tree.get(l).scopes.iter().map(|s| s.block).collect()
    }

    /// The warps of the deepest enclosing block of `l` whose executing warps are decided.
    pub fn role_warps(&self, l: Label) -> Vec<u32> {
        for s in self.tree.get(l).scopes.iter().rev() {
            if let Some(w) = self.roles.warps_of(s.block) {
                return w;
            }
        }
        (0..self.roles.nwarps).collect()
    }

    /// The warp-role split separating `a` and `b`: the `if` whose branches hold them
    /// (then-side access, else-side access, then block, else block).
    pub fn split(&self, a: Label, b: Label) -> Option<(Label, Label, Label, Label)> {
        let sa = &self.tree.get(a).scopes;
        let sb = &self.tree.get(b).scopes;
        let i = sa.iter().zip(sb.iter()).position(|(x, y)| x != y)?;
        let (pa, pb) = (sa[i], sb[i]);
        if pa.owner.is_none() || pa.owner != pb.owner {
            return None;
        }
        let wa = self.roles.warps_of(pa.block)?;
        let wb = self.roles.warps_of(pb.block)?;
        if wa.is_empty() || wb.is_empty() {
            return None;
        }
        match (pa.kind, pb.kind) {
            (ScopeKind::Then, ScopeKind::Else) => Some((a, b, pa.block, pb.block)),
            (ScopeKind::Else, ScopeKind::Then) => Some((b, a, pb.block, pa.block)),
            _ => None,
        }
    }

    /// Loops enclosing `l` strictly inside `branch` (outermost first): (loop stmt, body block).
    fn loops_below(&self, l: Label, branch: Label) -> Vec<(Label, Label)> {
        let scopes = &self.tree.get(l).scopes;
        let Some(i) = scopes.iter().position(|s| s.block == branch) else {
            return vec![];
        };
        scopes[i + 1..]
            .iter()
            // One-shot loops (a lowered `switch`, an inlined body) repeat nothing.
            .filter(|s| s.kind == ScopeKind::LoopBody && !s.once)
            .filter_map(|s| Some((s.owner?, s.block)))
            .collect()
    }

    /// Channel endpoints for access `x` in role branch `branch`.
    fn ends(&self, x: Label, branch: Label, body: Option<Label>) -> Vec<End> {
        let xb = self.blocks(x);
        let need = self.role_warps(x);
        let mut out = Vec::new();
        for &p in &self.cands {
            if self.unif.position_level(p) > Level::Warp {
                continue;
            }
            let pb = match p {
                Position::BlockStart(b) => self.blocks(b),
                Position::After(l) => self.blocks(l),
            };
            if !pb.contains(&branch) || !pb.iter().all(|b| xb.contains(b)) {
                continue;
            }
            let Some(warps) = self.roles.warps_at(p) else { continue };
            if !need.iter().all(|w| warps.contains(w)) {
                continue;
            }
            let Some(count) = self.roles.count(&self.tree, p.label(), &warps) else {
                continue;
            };
            if count == 0 {
                continue;
            }
            out.push(End {
                pos: p,
                warps,
                count,
                post: self.post(p.label()),
                in_loop: body.is_some_and(|b| pb.contains(&b)),
                direct: body.is_some_and(|b| p == Position::BlockStart(b) || pb.last() == Some(&b)),
            });
        }
        out
    }

    /// Prepares a cross-role race (then-side `x`, else-side `y`).
    pub fn cross(&self, x: Label, y: Label, bx: Label, by: Label) -> Result<Cross, NoOption> {
        let lx = self.loops_below(x, bx);
        let ly = self.loops_below(y, by);
        let loops = match (lx.as_slice(), ly.as_slice()) {
            ([], _) | (_, []) => None,
            ([(sx, _)], [(sy, _)]) => {
                let tx: BTreeSet<Option<u64>> = self.role_warps(x).iter().map(|&w| self.roles.trips(*sx, w)).collect();
                let ty: BTreeSet<Option<u64>> = self.role_warps(y).iter().map(|&w| self.roles.trips(*sy, w)).collect();
                if tx.contains(&None) || ty.contains(&None) {
                    return Err(NoOption::UnknownTrips);
                }
                if tx.len() != 1 || tx != ty {
                    return Err(NoOption::RoleLoops);
                }
                Some((*sx, *sy))
            }
            _ => return Err(NoOption::RoleLoops),
        };
        let body_x = lx.first().map(|l| l.1).filter(|_| loops.is_some());
        let body_y = ly.first().map(|l| l.1).filter(|_| loops.is_some());
        // Shifts by 1 need counted loops; by 2, IDs that cycle with both counters too.
        let shiftable = match loops.map(|(sx, sy)| (counter(self.k, sx), counter(self.k, sy))) {
            Some((Some(cx), Some(cy))) => {
                let rotates = cx.rotation(self.k, 2).is_some() && cy.rotation(self.k, 2).is_some();
                if rotates {
                    vec![1, 2]
                } else {
                    vec![1]
                }
            }
            _ => vec![],
        };
        Ok(Cross {
            x,
            y,
            loops,
            shiftable,
            ends_x: self.ends(x, bx, body_x),
            ends_y: self.ends(y, by, body_y),
        })
    }

    /// Channel options ordering `c.x` before `c.y` (forward), and, when `backward` is
    /// `Some(d)`, `c.y` in iteration k before `c.x` in iteration k + d.
    pub fn cross_needs(&self, c: &Cross, backward: Option<u32>) -> Result<Vec<Need>, NoOption> {
        let (px, py) = (self.post(c.x), self.post(c.y));
        let mut fwd = Vec::new();
        let mut bwd = Vec::new();
        for p in &c.ends_x {
            for q in &c.ends_y {
                if p.count != q.count {
                    continue;
                }
                let key = (p.pos, q.pos, 0);
                let p_after_x = p.post >= px;
                let q_after_y = q.post >= py;
                match c.loops {
                    Some(_) if p.in_loop && q.in_loop => {
                        // Forward needs s = [p before x] + [q after y] = 0.
                        if p_after_x && !q_after_y {
                            fwd.push((key, Side::Second));
                        }
                        if let Some(d) = backward {
                            // Backward: sender q, receiver p; s = [q before y] + [p after x].
                            let s = u32::from(!q_after_y) + u32::from(p_after_x);
                            if s >= 1 && s <= d {
                                bwd.push((key, Side::First));
                            }
                            // Shifted by d: the sync runs from iteration d on, the arrive
                            // until d iterations remain, which adds d to s. Only the exact
                            // distance is offered: a smaller shift would also verify but
                            // serialize the roles more than the race needs.
                            if c.shiftable.contains(&d) && p.direct && q.direct && q_after_y && !p_after_x {
                                bwd.push(((p.pos, q.pos, d), Side::First));
                            }
                        }
                    }
                    Some(_) if !p.in_loop && !q.in_loop => {
                        // Serializing the role loops is only the lock-step order when nothing
                        // flows back from the else side to a later then-side iteration.
                        if backward.is_none() && p_after_x && !q_after_y {
                            fwd.push((key, Side::Second));
                        }
                    }
                    Some(_) => {}
                    None => {
                        if p_after_x && !q_after_y {
                            fwd.push((key, Side::Second));
                        }
                    }
                }
            }
        }
        if fwd.is_empty() || (backward.is_some() && bwd.is_empty()) {
            return Err(NoOption::NoMatchedPair);
        }
        let mut out = vec![Need::Chan(fwd)];
        if backward.is_some() {
            out.push(Need::Chan(bwd));
        }
        Ok(out)
    }

    /// Sync options for an in-region race: positions between the accesses executed by every
    /// warp involved, each the same number of times per warp.
    pub fn region_needs(&self, r: &Race, narrow: &BTreeSet<(RaceKey, u32)>) -> Result<Vec<Need>, NoOption> {
        let (a, b) = (r.first.label, r.second.label);
        let mut need: Vec<u32> = self.role_warps(a);
        need.extend(self.role_warps(b));
        let common = self.tree.get(a).common_loops(self.tree.get(b)) as u32;
        // The named checker does not classify iteration relations within common loops; ask
        // for what every relation would need (one statement cannot race with itself in one
        // iteration and still be fixable, so that relation is left to the oracle to refute).
        let mut r2 = r.clone();
        let mut narrow2 = narrow.clone();
        if r.relations.contains(&IterRelation::Unknown) {
            r2.relations = if a == b {
                vec![]
            } else {
                vec![IterRelation::SameIteration]
            };
            for d in 1..=common {
                r2.relations.push(IterRelation::AcrossBackEdge(d));
                narrow2.insert((key(r), d));
            }
        }
        let mut out = Vec::new();
        for cl in clauses(&self.space, &r2, &narrow2) {
            let opts: Vec<usize> = cl
                .into_iter()
                .filter(|&i| {
                    let p = self.space.positions[i].0;
                    let Some(w) = self.roles.warps_at(p) else { return false };
                    need.iter().all(|x| w.contains(x)) && self.roles.count(&self.tree, p.label(), &w).is_some()
                })
                .collect();
            if opts.is_empty() {
                return Err(NoOption::LaneDivergent);
            }
            out.push(Need::Sync(opts));
        }
        if out.is_empty() {
            return Err(NoOption::LaneDivergent);
        }
        Ok(out)
    }
}

/// Every candidate position, in text order.
pub fn emittable(k: &Kernel) -> Vec<Position> {
    candidate_positions(k)
}

/// Loop pairs of cross races and the race keys in each (for the back-flow probes).
pub fn loop_pairs(crosses: &BTreeMap<RaceKey, Cross>) -> BTreeMap<(Label, Label), Vec<RaceKey>> {
    let mut m: BTreeMap<(Label, Label), Vec<RaceKey>> = BTreeMap::new();
    for (k, c) in crosses {
        if let Some(l) = c.loops {
            m.entry(l).or_default().push(*k);
        }
    }
    m
}
