//! What the refinement has learned so far: each race as a cross-role or in-region
//! requirement, the back-flow distances of role loops, the narrowed in-region options, and
//! the choices the checker ruled out.

use super::encoding::Decision;
use super::needs::{Cross, Ctx, Need, NoOption};
use super::outcome::{NamedOutcome, NamedUnfixable};
use crate::synth::space::{key, RaceKey};
use autosync_oracle::ir::{Expr, Kernel, Loop, StmtKind};
use autosync_oracle::report::Race;
use autosync_oracle::tree::{for_each_stmt, LabelTree};
use std::collections::{BTreeMap, BTreeSet};

/// Mutable state of the refinement loop.
#[derive(Default)]
pub(super) struct State {
    /// Cross-role races and the roles and loops they join.
    pub(super) crosses: BTreeMap<RaceKey, Cross>,
    /// Back-flow distance of a cross-role race in role loops (1, or 2 and more).
    pub(super) backward: BTreeMap<RaceKey, u32>,
    /// In-region races.
    pub(super) regions: BTreeMap<RaceKey, Race>,
    /// In-region races, per loop depth, whose options across that back edge are narrowed
    /// (`space::clauses`).
    pub(super) narrow: BTreeSet<(RaceKey, u32)>,
    /// Choices the checker ruled out (each a clause over decisions).
    pub(super) forbidden: Vec<Vec<(Decision, bool)>>,
}

impl State {
    /// The state for the input's races, each a cross-role or in-region requirement; `Err` is the
    /// outcome when some race has no option.
    pub(super) fn from_races(cx: &Ctx, races: &[Race]) -> Result<State, NamedOutcome> {
        let mut st = State::default();
        let mut why = Vec::new();
        for r in races {
            match st.add(cx, r) {
                // Not a property of the kernel: the launch leaves the loop bounds open.
                Err(NamedUnfixable::NoOption(r, NoOption::UnknownTrips)) => {
                    return Err(NamedOutcome::Inconclusive(unknown_trips_message(cx.k, &cx.tree, &r)))
                }
                Err(e) => why.push(e),
                Ok(()) => {}
            }
        }
        if !why.is_empty() {
            return Err(NamedOutcome::Unfixable(why));
        }
        Ok(st)
    }

    /// Adds a race; `Err` when it has no option.
    pub(super) fn add(&mut self, cx: &Ctx, r: &Race) -> Result<(), NamedUnfixable> {
        let (a, b) = (r.first.label, r.second.label);
        if let Some((x, y, bx, by)) = cx.split(a, b) {
            let c = cx
                .cross(x, y, bx, by)
                .map_err(|e| NamedUnfixable::NoOption(Box::new(r.clone()), e))?;
            self.crosses.insert(key(r), c);
            return Ok(());
        }
        let common = cx.tree.get(a).common_loops(cx.tree.get(b));
        if a == b && common == 0 {
            return Err(NamedUnfixable::SameStatement(Box::new(r.clone())));
        }
        self.regions.insert(key(r), r.clone());
        Ok(())
    }

    pub(super) fn needs(&self, cx: &Ctx) -> Result<BTreeMap<RaceKey, Vec<Need>>, (RaceKey, NoOption)> {
        let mut out = BTreeMap::new();
        for (k, c) in &self.crosses {
            let n = cx.cross_needs(c, self.backward.get(k).copied()).map_err(|e| (*k, e))?;
            out.insert(*k, n);
        }
        for (k, r) in &self.regions {
            let n = cx.region_needs(r, &self.narrow).map_err(|e| (*k, e))?;
            out.insert(*k, n);
        }
        Ok(out)
    }
}

/// "needs a concrete value for iters (use --param iters=V)", naming the parameters the bounds
/// of the loops around race `r` read.
fn unknown_trips_message(k: &Kernel, tree: &LabelTree, r: &Race) -> String {
    let mut params = BTreeSet::new();
    for l in [r.first.label, r.second.label] {
        for lp in tree.get(l).loop_owners() {
            for_each_stmt(&k.body, &mut |s| {
                if let (true, StmtKind::Loop(Loop { cond, .. })) = (s.label == lp, &s.kind) {
                    collect_params(k, cond, &mut params);
                }
            });
        }
    }
    let names: Vec<String> = params.into_iter().collect();
    if names.is_empty() {
        return "named-barrier synthesis needs concrete trip counts for the role loops around the race".into();
    }
    let flags: Vec<String> = names.iter().map(|n| format!("--param {n}=V")).collect();
    format!(
        "named-barrier synthesis needs a concrete value for {} (use {})",
        names.join(", "),
        flags.join(" ")
    )
}

fn collect_params(k: &Kernel, e: &Expr, out: &mut BTreeSet<String>) {
    e.for_each_var(&mut |v| {
        if k.var(v).kind == autosync_oracle::ir::VarKind::Param {
            out.insert(k.var(v).name.clone());
        }
    });
}
