//! ID assignment: the chosen decisions as statements, `__syncthreads` where the whole block
//! syncs, distinct IDs in text order (or shared ones, cycling through the available IDs),
//! and IDs that cycle with a role loop's counter for shifted channels.

use super::encoding::{chan_costs, chan_guards, chan_warps, role_loop, sub_cost, Decision};
use super::guard;
use super::needs::{ChanKey, Ctx, Need, Side};
use super::outcome::NamedUnfixable;
use super::placed::NamedPlaced;
use super::roles::WARP;
use super::settings::NamedKind;
use crate::synth::space::{key, RaceKey, SynthOptions};
use autosync_oracle::ir::Label;
use autosync_oracle::report::Race;
use autosync_oracle::tree::Position;
use std::collections::{BTreeMap, BTreeSet};

/// What turning a choice into statements reads: the context, the options, the IDs new
/// barriers may take and the input's races (what each statement covers).
pub(super) struct Realize<'a> {
    /// The context of the kernel.
    pub(super) cx: &'a Ctx<'a>,
    /// The options.
    pub(super) opts: &'a SynthOptions,
    /// The IDs new barriers may take.
    pub(super) avail: &'a [u32],
    /// The input's races.
    pub(super) races: &'a [Race],
}

impl Realize<'_> {
    /// Turns the chosen decisions into statements with IDs (distinct, or cycling through the
    /// available ones when `share_ids`); also returns how many IDs a distinct assignment needs.
    pub(super) fn realize(
        &self,
        chosen: &[(Decision, bool)],
        needs: &BTreeMap<RaceKey, Vec<Need>>,
        share_ids: bool,
    ) -> Result<(Vec<NamedPlaced>, usize), NamedUnfixable> {
        let on: BTreeSet<Decision> = chosen.iter().filter(|x| x.1).map(|x| x.0).collect();
        let choice = Choice {
            cx: self.cx,
            opts: self.opts,
            cycle: cycle_widths(self.cx, &on),
            on,
            needs,
            races: self.races,
        };
        let (mut out, items) = choice.block_syncs_and_id_items();
        let needed: usize = items.iter().map(|(_, d)| choice.width(d) as usize).sum();
        let avail = self.avail;
        if avail.is_empty() && !items.is_empty() || needed > avail.len() && !share_ids {
            return Err(NamedUnfixable::NotEnoughIds {
                needed,
                available: avail.len(),
            });
        }
        let mut ids = Ids {
            avail,
            free: avail.to_vec(),
            share_ids,
            needed,
        };
        for (n, (_, d)) in items.iter().enumerate() {
            let w = choice.width(d);
            let id = ids.take(n, w)?;
            match *d {
                Decision::Sub(i) => out.push(choice.sub_sync(i, id)),
                Decision::Chan(c) => out.extend(choice.channel(c, id, w)?),
                Decision::ChanSync(..) => {}
            }
        }
        // Text order; at one position arrives first (they never block), then syncs.
        out.sort_by_key(|p| (self.cx.tree.get(p.pos.label()).post, p.pos, p.kind.rank()));
        Ok((out, items.len()))
    }
}

/// Per pair of role loops: how many IDs its channels cycle through. A channel in role loops
/// where some chosen channel is shifted by e >= 2 cycles through e IDs: a warp may then run e
/// iterations ahead, so e generations can be in flight at once.
fn cycle_widths(cx: &Ctx, on: &BTreeSet<Decision>) -> BTreeMap<(Option<Label>, Option<Label>), u32> {
    let mut cycle = BTreeMap::new();
    for d in on {
        if let Decision::Chan(c) = *d {
            if c.2 >= 2 {
                let e = cycle.entry((role_loop(cx, c.0), role_loop(cx, c.1))).or_insert(1);
                *e = (*e).max(c.2);
            }
        }
    }
    cycle
}

/// One choice of decisions on its way to statements: what each statement reads.
struct Choice<'a> {
    cx: &'a Ctx<'a>,
    opts: &'a SynthOptions,
    /// The decisions set.
    on: BTreeSet<Decision>,
    /// What each race needs (which races a statement covers).
    needs: &'a BTreeMap<RaceKey, Vec<Need>>,
    /// The input's races.
    races: &'a [Race],
    /// IDs cycled through per pair of role loops (see [`cycle_widths`]).
    cycle: BTreeMap<(Option<Label>, Option<Label>), u32>,
}

impl Choice<'_> {
    /// Indices of the input's races with a need `pred` accepts.
    fn covers(&self, pred: &dyn Fn(&Need) -> bool) -> Vec<usize> {
        self.races
            .iter()
            .enumerate()
            .filter(|(_, r)| self.needs.get(&key(r)).is_some_and(|ns| ns.iter().any(pred)))
            .map(|(i, _)| i)
            .collect()
    }

    /// How many IDs decision `d` cycles through (1 unless a channel of shifted role loops).
    fn width(&self, d: &Decision) -> u32 {
        match *d {
            Decision::Chan(c) => self
                .cycle
                .get(&(role_loop(self.cx, c.0), role_loop(self.cx, c.1)))
                .copied()
                .unwrap_or(1),
            _ => 1,
        }
    }

    /// The `__syncthreads` of syncs the whole block runs (they take no ID), and the decisions
    /// that take IDs, in text order of their first position.
    fn block_syncs_and_id_items(&self) -> (Vec<NamedPlaced>, Vec<(u32, Decision)>) {
        let mut items: Vec<(u32, Decision)> = Vec::new();
        let mut out = Vec::new();
        for d in &self.on {
            match *d {
                Decision::Sub(i) => {
                    let (cost, warps) = sub_cost(self.cx, self.opts, i);
                    let pos = self.cx.space.positions[i].0;
                    if warps.is_none() {
                        out.push(NamedPlaced {
                            pos,
                            kind: NamedKind::SyncThreads,
                            cost,
                            covers: self.covers(&|n| matches!(n, Need::Sync(v) if v.contains(&i))),
                            channel: false,
                            guard: None,
                            rotation: None,
                        });
                    } else {
                        items.push((self.cx.tree.get(pos.label()).post, *d));
                    }
                }
                Decision::Chan(c) => items.push((self.cx.tree.get(c.0.label()).post, *d)),
                Decision::ChanSync(..) => {}
            }
        }
        items.sort();
        (out, items)
    }

    /// The sub-block `bar.sync` at space position `i` on `id`.
    fn sub_sync(&self, i: usize, id: u32) -> NamedPlaced {
        let (cost, warps) = sub_cost(self.cx, self.opts, i);
        let count = WARP * warps.map_or(self.cx.roles.nwarps, |w| w.len() as u32);
        NamedPlaced {
            pos: self.cx.space.positions[i].0,
            kind: NamedKind::Sync { id, count },
            cost,
            covers: self.covers(&|n| matches!(n, Need::Sync(v) if v.contains(&i))),
            channel: false,
            guard: None,
            rotation: None,
        }
    }

    /// The two ends of channel `c` on `id` (the first of `w` it cycles through): each a sync
    /// where the choice says so, else an arrive; a shifted channel's ends under their guards.
    fn channel(&self, c: ChanKey, id: u32, w: u32) -> Result<Vec<NamedPlaced>, NamedUnfixable> {
        let (cx, opts) = (self.cx, self.opts);
        let count = WARP * chan_warps(cx, c).len() as u32;
        let (ca, cb) = chan_costs(cx, opts, c);
        let cov = self.covers(&|n| matches!(n, Need::Chan(v) if v.iter().any(|x| x.0 == c)));
        let (gx, gy) = if c.2 > 0 {
            let (gx, gy) = chan_guards(cx, c).ok_or(NamedUnfixable::NoPlacement)?;
            (Some(gx), Some(gy))
        } else {
            (None, None)
        };
        let rotate = |p: Position| -> Result<Option<guard::Rotation>, NamedUnfixable> {
            if w == 1 {
                return Ok(None);
            }
            role_loop(cx, p)
                .and_then(|l| guard::counter(cx.k, l))
                .and_then(|c| c.rotation(cx.k, w))
                .map(Some)
                .ok_or(NamedUnfixable::NoPlacement)
        };
        let (rx, ry) = (rotate(c.0)?, rotate(c.1)?);
        let mut out = Vec::new();
        for (side, pos, full, guard, rotation) in [(Side::First, c.0, ca, gx, rx), (Side::Second, c.1, cb, gy, ry)] {
            let sync = self.on.contains(&Decision::ChanSync(c, side));
            let (kind, cost) = if sync {
                (NamedKind::Sync { id, count }, full)
            } else {
                (NamedKind::Arrive { id, count }, full * opts.named.arrive_factor)
            };
            out.push(NamedPlaced {
                pos,
                kind,
                cost,
                covers: cov.clone(),
                channel: true,
                guard,
                rotation,
            });
        }
        Ok(out)
    }
}

/// The IDs a choice's statements take, in text order.
struct Ids<'a> {
    /// The IDs new barriers may take.
    avail: &'a [u32],
    /// Those not taken yet.
    free: Vec<u32>,
    /// Cycle through `avail` instead of taking distinct IDs.
    share_ids: bool,
    /// How many IDs a distinct assignment needs (for the error).
    needed: usize,
}

impl Ids<'_> {
    /// The ID of the `n`th item: the first of `w` consecutive free IDs for an item cycling
    /// through `w` (its ID is `base + counter % w`), else the next free one, or the next
    /// available one in turn when IDs are shared.
    fn take(&mut self, n: usize, w: u32) -> Result<u32, NamedUnfixable> {
        if w > 1 {
            let base = self
                .free
                .iter()
                .copied()
                .find(|&b| (b..b + w).all(|i| self.free.contains(&i)))
                .ok_or(NamedUnfixable::NotEnoughIds {
                    needed: self.needed,
                    available: self.avail.len(),
                })?;
            self.free.retain(|i| !(base..base + w).contains(i));
            Ok(base)
        } else if self.share_ids {
            Ok(self.avail[n % self.avail.len().max(1)])
        } else {
            Ok(self.free.remove(0))
        }
    }
}
