//! The MaxSAT encoding: a decision per sync position, channel and synchronizing channel end,
//! hard clauses from the races' needs and the forbidden choices, soft clauses from the cost
//! model; and the costs, warps and guards of a decision's statements.

use super::costs::{base_cost, sync_factor};
use super::guard;
use super::needs::{ChanKey, Ctx, Need, Side};
use crate::synth::maxsat::{lit_value, MaxSatError, MaxSatProblem, MaxSatResult};
use crate::synth::space::{RaceKey, SynthOptions};
use autosync_oracle::ir::Label;
use autosync_oracle::sdv::Level;
use autosync_oracle::tree::Position;
use rustsat::types::{Lit, Var};
use std::collections::BTreeMap;

/// A decision variable of the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Decision {
    /// A sync at space position i.
    Sub(usize),
    /// A channel exists (both ends at least arrive).
    Chan(ChanKey),
    /// One end of a channel synchronizes.
    ChanSync(ChanKey, Side),
}

/// Builds and solves the MaxSAT instance; returns the value of every decision.
pub(super) fn solve(
    cx: &Ctx,
    opts: &SynthOptions,
    needs: &BTreeMap<RaceKey, Vec<Need>>,
    forbidden: &[Vec<(Decision, bool)>],
) -> Result<Option<Vec<(Decision, bool)>>, String> {
    let mut p = MaxSatProblem::new();
    let mut vars: BTreeMap<Decision, Var> = BTreeMap::new();
    let mut var = |p: &mut MaxSatProblem, d: Decision| *vars.entry(d).or_insert_with(|| p.new_var());
    let mut hard: Vec<Vec<Lit>> = Vec::new();
    for ns in needs.values() {
        for n in ns {
            let lits: Vec<Lit> = match n {
                Need::Sync(v) => v.iter().map(|&i| var(&mut p, Decision::Sub(i)).pos_lit()).collect(),
                Need::Chan(v) => v
                    .iter()
                    .map(|&(c, s)| {
                        var(&mut p, Decision::Chan(c));
                        var(&mut p, Decision::ChanSync(c, Side::First));
                        var(&mut p, Decision::ChanSync(c, Side::Second));
                        var(&mut p, Decision::ChanSync(c, s)).pos_lit()
                    })
                    .collect(),
            };
            hard.push(lits);
        }
    }
    for f in forbidden {
        let lits: Vec<Lit> = f
            .iter()
            .map(|&(d, val)| {
                let v = var(&mut p, d);
                if val {
                    v.neg_lit()
                } else {
                    v.pos_lit()
                }
            })
            .collect();
        hard.push(lits);
    }
    // Costs in integer units: the cheapest option weighs at least 1000.
    let mut costs: Vec<(Var, f64)> = Vec::new();
    let decisions: Vec<(Decision, Var)> = vars.iter().map(|(d, v)| (*d, *v)).collect();
    for &(d, v) in &decisions {
        match d {
            Decision::Sub(i) => costs.push((v, sub_cost(cx, opts, i).0)),
            Decision::Chan(c) => {
                let (a, b) = chan_costs(cx, opts, c);
                costs.push((v, opts.named.arrive_factor * (a + b)));
            }
            Decision::ChanSync(c, s) => {
                let (a, b) = chan_costs(cx, opts, c);
                let full = if s == Side::First { a } else { b };
                costs.push((v, (1.0 - opts.named.arrive_factor) * full));
                // A synchronizing end implies the channel.
                let e = vars[&Decision::Chan(c)];
                hard.push(vec![v.neg_lit(), e.pos_lit()]);
            }
        }
    }
    for h in &hard {
        p.add_hard(h);
    }
    let min = costs
        .iter()
        .map(|c| c.1)
        .filter(|c| *c > 0.0)
        .fold(f64::INFINITY, f64::min);
    let scale = if min.is_finite() { 1000.0 / min.min(1.0) } else { 1.0 };
    for (v, c) in &costs {
        if *c > 0.0 {
            p.add_soft(v.neg_lit(), (c * scale).round().max(1.0) as u64);
        }
    }
    if let Some(dir) = &opts.dump_wcnf {
        let _ = std::fs::create_dir_all(dir);
        if let Ok(mut f) = std::fs::File::create(dir.join(format!("{}-named.wcnf", cx.k.name))) {
            let _ = p.write_wcnf(&mut f);
        }
    }
    match opts.algorithm.solver().solve(&p) {
        Ok(MaxSatResult::Optimal { model, .. }) => Ok(Some(
            decisions
                .iter()
                .map(|(d, v)| (*d, lit_value(&model, v.pos_lit())))
                .collect(),
        )),
        Ok(MaxSatResult::Unsat) => Ok(None),
        Err(MaxSatError::WeightOverflow) => Err("cost weights overflow; lower --cost-loop".into()),
        Err(e) => Err(format!("MaxSAT solver failed: {e}")),
    }
}

/// Cost and kind of a sync at space position `i`: `__syncthreads` where the whole block runs
/// it at a block-uniform position, else a sub-block `bar.sync` over its warps.
pub(super) fn sub_cost(cx: &Ctx, opts: &SynthOptions, i: usize) -> (f64, Option<Vec<u32>>) {
    let (pos, base) = cx.space.positions[i];
    let warps = cx.roles.warps_at(pos).unwrap_or_default();
    let all = warps.len() as u32 == cx.roles.nwarps;
    if all && cx.unif.position_level(pos) == Level::Block {
        (base, None)
    } else {
        (
            base * sync_factor(warps.len() as u32, cx.roles.nwarps, &opts.named),
            Some(warps),
        )
    }
}

pub(super) fn chan_warps(cx: &Ctx, c: ChanKey) -> Vec<u32> {
    let mut w = cx.roles.warps_at(c.0).unwrap_or_default();
    w.extend(cx.roles.warps_at(c.1).unwrap_or_default());
    w.sort_unstable();
    w.dedup();
    w
}

/// Cost of a sync at each end of a channel (a shifted channel's ends sit under a guard).
pub(super) fn chan_costs(cx: &Ctx, opts: &SynthOptions, c: ChanKey) -> (f64, f64) {
    let mut f = sync_factor(chan_warps(cx, c).len() as u32, cx.roles.nwarps, &opts.named);
    if c.2 > 0 {
        f *= opts.cost_if;
    }
    (base_cost(&cx.tree, c.0, opts) * f, base_cost(&cx.tree, c.1, opts) * f)
}

/// The innermost loop around position `p`.
pub(super) fn role_loop(cx: &Ctx, p: Position) -> Option<Label> {
    cx.tree.get(p.label()).loop_owners().last().copied()
}

/// The guards of a shifted channel's ends: the then-side end skips the first `c.2`
/// iterations of its role loop, the else-side end the last `c.2`.
pub(super) fn chan_guards(cx: &Ctx, c: ChanKey) -> Option<(guard::Guard, guard::Guard)> {
    let gx = guard::counter(cx.k, role_loop(cx, c.0)?)?.from_iteration(cx.k, c.2)?;
    let gy = guard::counter(cx.k, role_loop(cx, c.1)?)?.before_last(cx.k, c.2)?;
    Some((gx, gy))
}
