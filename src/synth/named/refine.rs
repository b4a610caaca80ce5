//! The refinement rounds: solve the requirements, give the choice IDs, check the candidate
//! with the named checker, and learn from what it still reports (new races, back-flow,
//! narrower options, forbidden choices) until a placement verifies or none can.

use super::encoding::{solve, Decision};
use super::ids::Realize;
use super::needs::{Ctx, Need};
use super::outcome::{NamedOutcome, NamedUnfixable, NOT_CONVERGED};
use super::placed::{apply, NamedPlaced};
use super::state::State;
use crate::synth::space::{key, RaceKey, SynthOptions, SynthStats};
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::{Race, Report, SyncDefectKind};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// The rounds of a placement: what they read, and the refinement [`State`] they grow.
pub(super) struct Refinement<'a> {
    /// The kernel and what synthesis knows about it.
    pub(super) cx: &'a Ctx<'a>,
    /// The synthesis options.
    pub(super) opts: &'a SynthOptions,
    /// The named checker's options.
    pub(super) nopts: &'a NamedOptions,
    /// The IDs new barriers may take.
    pub(super) avail: &'a [u32],
    /// The input's races (what each barrier is said to cover).
    pub(super) races: &'a [Race],
    /// What the rounds have learned.
    pub(super) st: State,
    /// Rounds before giving up.
    pub(super) max_rounds: u32,
    /// Some race of the input involves an asynchronous copy (see [`Refinement::prune`]).
    pub(super) copy_races: bool,
}

impl Refinement<'_> {
    /// Rounds until a placement verifies or none can.
    pub(super) fn run(&mut self, stats: &mut SynthStats) -> NamedOutcome {
        let mut round = 0;
        loop {
            round += 1;
            stats.rounds = round;
            if round > self.max_rounds {
                return NamedOutcome::Inconclusive(NOT_CONVERGED.into());
            }
            if let ControlFlow::Break(outcome) = self.round(stats) {
                return outcome;
            }
        }
    }

    /// One round: solve the requirements, give the choice IDs, check the candidate, and learn
    /// from what the checker still reports; `Break` ends the search with its outcome.
    fn round(&mut self, stats: &mut SynthStats) -> ControlFlow<NamedOutcome> {
        let needs = self.needs()?;
        stats.maxsat_calls += 1;
        let chosen = match solve(self.cx, self.opts, &needs, &self.st.forbidden) {
            Ok(Some(c)) => c,
            Ok(None) => return ControlFlow::Break(NamedOutcome::Unfixable(vec![NamedUnfixable::NoPlacement])),
            Err(msg) => return ControlFlow::Break(NamedOutcome::Inconclusive(msg)),
        };
        let (placed, shared) = self.with_ids(&chosen, &needs)?;
        let Some(candidate) = apply(self.cx.k, &placed) else {
            return ControlFlow::Break(NamedOutcome::Inconclusive(
                "internal: a chosen position is not in the kernel".into(),
            ));
        };
        let report = self.opts.unsuppressed(self.cx.k, named::check(&candidate, self.nopts));
        stats.oracle_calls += 1;
        if report.is_clean() {
            let placed = self.prune(placed, stats);
            let cost = placed.iter().map(|p| p.cost).sum();
            return ControlFlow::Break(NamedOutcome::Fixed { barriers: placed, cost });
        }
        if let Some(i) = report.inconclusive.first() {
            return ControlFlow::Break(NamedOutcome::Inconclusive(i.message.clone()));
        }
        if let (Some(needed), false) = (shared, report.sync_defects.is_empty()) {
            let why = NamedUnfixable::NotEnoughIds {
                needed,
                available: self.avail.len(),
            };
            return ControlFlow::Break(NamedOutcome::Unfixable(vec![why]));
        }
        if !report.sync_defects.is_empty() || !report.divergences.is_empty() {
            let clause = self.defect_clause(chosen, &report);
            self.st.forbidden.push(clause);
            return ControlFlow::Continue(());
        }
        if !self.learn(&report.races)? {
            self.st.forbidden.push(chosen);
        }
        ControlFlow::Continue(())
    }

    /// A verified placement without the barriers it does not need, when some race involves an
    /// asynchronous copy. The checker cannot say in which order a copy and an access race (a
    /// copy's accesses happen after its issue, at no statement), so the race's requirement asks
    /// for both orders and the placement may order one the copy's wait already orders. Each
    /// barrier, costliest first, is dropped when the kernel still checks clean without it.
    fn prune(&self, placed: Vec<NamedPlaced>, stats: &mut SynthStats) -> Vec<NamedPlaced> {
        if placed.len() < 2 || !self.copy_races {
            return placed;
        }
        let mut order: Vec<usize> = (0..placed.len()).collect();
        order.sort_by(|&a, &b| placed[b].cost.total_cmp(&placed[a].cost));
        let mut keep = vec![true; placed.len()];
        for i in order {
            keep[i] = false;
            let rest: Vec<NamedPlaced> = placed
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(p, _)| p.clone())
                .collect();
            let clean = apply(self.cx.k, &rest).is_some_and(|c| {
                stats.oracle_calls += 1;
                self.opts
                    .unsuppressed(self.cx.k, named::check(&c, self.nopts))
                    .is_clean()
            });
            keep[i] = !clean;
        }
        placed
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(p, _)| p)
            .collect()
    }

    /// What a candidate with synchronization defects rules out: the whole assignment, or, when
    /// every defect is a deadlock, only its inserted barriers (see [`deadlock_persists`]), so
    /// adding unrelated channels to a deadlocking one is not tried again (a kernel whose races
    /// have several cheap deadlocking options otherwise needs a round per combination of them).
    fn defect_clause(&self, chosen: Vec<(Decision, bool)>, report: &Report) -> Vec<(Decision, bool)> {
        if deadlock_persists(report) {
            chosen.into_iter().filter(|(_, on)| *on).collect()
        } else {
            chosen
        }
    }

    /// Every race's options under the current state; `Break` when a race has none.
    fn needs(&self) -> ControlFlow<NamedOutcome, BTreeMap<RaceKey, Vec<Need>>> {
        let (rk, e) = match self.st.needs(self.cx) {
            Ok(n) => return ControlFlow::Continue(n),
            Err(x) => x,
        };
        let r = self
            .races
            .iter()
            .find(|r| key(r) == rk)
            .or_else(|| self.st.regions.get(&rk))
            .cloned();
        let why = match r {
            Some(r) => NamedUnfixable::NoOption(Box::new(r), e),
            None => NamedUnfixable::NoPlacement,
        };
        ControlFlow::Break(NamedOutcome::Unfixable(vec![why]))
    }

    /// The chosen decisions as statements, with distinct IDs first; when they run out, barriers
    /// share IDs in text order and the checker decides whether the shared ones are never in
    /// flight at once (then also how many IDs a distinct assignment needs).
    fn with_ids(
        &self,
        chosen: &[(Decision, bool)],
        needs: &BTreeMap<RaceKey, Vec<Need>>,
    ) -> ControlFlow<NamedOutcome, (Vec<NamedPlaced>, Option<usize>)> {
        let unfixable = |u| ControlFlow::Break(NamedOutcome::Unfixable(vec![u]));
        let ids = Realize {
            cx: self.cx,
            opts: self.opts,
            avail: self.avail,
            races: self.races,
        };
        match ids.realize(chosen, needs, false) {
            Ok((p, _)) => ControlFlow::Continue((p, None)),
            Err(NamedUnfixable::NotEnoughIds { .. }) if !self.avail.is_empty() => {
                match ids.realize(chosen, needs, true) {
                    Ok((p, n)) => ControlFlow::Continue((p, Some(n))),
                    Err(u) => unfixable(u),
                }
            }
            Err(u) => unfixable(u),
        }
    }

    /// Learns from a candidate's races: a cross-role race in role loops needs distance 1, an
    /// in-region race its narrow options, a new race becomes a requirement. `Continue(false)`
    /// when nothing changed.
    fn learn(&mut self, races: &[Race]) -> ControlFlow<NamedOutcome, bool> {
        let mut progress = false;
        for r in races {
            let rk = key(r);
            if r.assumed {
                return ControlFlow::Break(NamedOutcome::Inconclusive(
                    "the solver could not decide a race of a candidate placement".into(),
                ));
            }
            if let Some(c) = self.st.crosses.get(&rk) {
                let d = self.st.backward.get(&rk).copied();
                if c.loops.is_some() && d != Some(1) {
                    self.st.backward.insert(rk, 1);
                    progress = true;
                }
            } else if self.st.regions.contains_key(&rk) {
                let tree = &self.cx.tree;
                let common = tree.get(r.first.label).common_loops(tree.get(r.second.label)) as u32;
                for d in 1..=common {
                    progress |= self.st.narrow.insert((rk, d));
                }
            } else {
                match self.st.add(self.cx, r) {
                    Ok(()) => progress = true,
                    Err(e) => return ControlFlow::Break(NamedOutcome::Unfixable(vec![e])),
                }
            }
        }
        ControlFlow::Continue(progress)
    }
}

/// Whether a candidate's defects stay in every candidate that inserts more: true when all of
/// them are deadlocks. Inserted barriers take IDs the kernel does not use (and no two share
/// one: a candidate that shares IDs ends the search before this is asked), so inserting a
/// barrier only adds a place to wait: its generations either complete, and the warps go on as
/// before, or block them earlier, so no warp gets further than in the deadlocking candidate;
/// turning an arrive into a sync only adds a wait too. (The kernel's own barriers were checked
/// defect-free before placement, so which arrivals make up their generations does not depend
/// on how the inserted waits shift the schedule.) A kernel that computes IDs at run time
/// may use one of the "free" IDs itself; then a superset that gives the deadlocking channel
/// another ID might not deadlock, and ruling it out only costs that fix (never soundness: every
/// placement is still checked), the same assumption `facts::available_ids` makes.
fn deadlock_persists(report: &Report) -> bool {
    !report.sync_defects.is_empty()
        && report.divergences.is_empty()
        && report
            .sync_defects
            .iter()
            .all(|d| matches!(d.kind, SyncDefectKind::Deadlock { .. }))
}
