//! Block-wide barrier placement: AutoSync's Algorithm 1 over the label tree, with the oracle's
//! iteration relations used to emit only the options a race needs.
//!
//! For a race between labels `a ⪯ b` (text order):
//! - `SameIteration` needs a barrier in the label interval `[a, b)`;
//! - `AcrossBackEdge(d)` (from `a` in iteration r to `b` in a later one) needs one in
//!   `[a, end_d) ∪ [start_d, b)`; `AcrossBackEdgeReversed(d)` (from `b` to `a` of a later
//!   iteration) needs one in the narrower `[b, end_d) ∪ [start_d, a)`. Should a verified placement
//!   still race across a back edge (an oracle that cannot tell the direction), the race is
//!   narrowed to the second set, which implies the first, so each refinement removes the
//!   current placement.
//! - `NotLastIteration(d)` (a race from a loop of `a` that `b` comes after, only from iterations
//!   before that loop's last) is also cut by a barrier every iteration of that loop passes: it
//!   needs one in `[a, b)` or in the loop's body at its top level. Should the placement still
//!   race, the race is narrowed to `[a, b)`.
//! - `NotFirstIteration(d)` (a race into a loop of `b` that `a` comes before, only into
//!   iterations after that loop's first) is likewise cut by a barrier every earlier iteration
//!   passes: one in `[a, b)` or in the loop's body at its top level (none when a `continue` of
//!   that loop can skip part of the body). Should the placement still race, the race is
//!   narrowed to `[a, b)`.
//!
//! The first check only assumes the last two relations where no model found by evaluation
//! refutes them (`SdvOptions::assume_loop_relations`: the solver's proof of one costs as much
//! as the rest of a small kernel's check). A candidate's check classifies every race it still
//! finds; for a race whose relation was assumed, its relations replace the assumed ones
//! instead of narrowing them.
//!
//! Positions are the candidate positions of the kernel that are block-uniform (so no barrier we
//! place can diverge). Costs are `LC^loops · IC^conds`.

use super::maxsat::{lit_value, MaxSatError, MaxSatProblem, MaxSatResult};
use super::space::{clauses, key, RaceKey, Space, SynthOptions, SynthStats, NOT_FIRST_NARROWED, NOT_LAST_NARROWED};
use autosync_oracle::ir::{Barrier, Kernel, Label, Loop};
use autosync_oracle::report::{IterRelation, Race, RaceScope, Report};
use autosync_oracle::sdv::{self, Level};
use autosync_oracle::tree::{insert_barriers, LabelTree, Position};
use rustsat::types::{Lit, Var};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

/// Why a kernel cannot be fixed by adding barriers.
#[derive(Clone, Debug, PartialEq)]
pub enum Unfixable {
    /// One statement reads and writes (or writes from many threads) the same address.
    SameStatement(Race),
    /// Threads of different blocks race; barriers only order one block.
    InterBlock(Race),
    /// Every position between the two accesses is under a thread-dependent condition.
    DivergentRegion(Race),
    /// No position of the kernel's own source lies between the accesses (they are in one
    /// statement, or both inside one called `__device__` function).
    NoSourcePosition(Race),
    /// The input already has a barrier under a non-uniform condition.
    DivergentBarrier(Label),
    /// The placement problem has no solution (should not happen when every race has options).
    NoPlacement,
}

impl Unfixable {
    /// The race concerned, if the cause is a race.
    pub fn race(&self) -> Option<&Race> {
        match self {
            Unfixable::SameStatement(r)
            | Unfixable::InterBlock(r)
            | Unfixable::DivergentRegion(r)
            | Unfixable::NoSourcePosition(r) => Some(r),
            Unfixable::DivergentBarrier(_) | Unfixable::NoPlacement => None,
        }
    }

    /// Short machine-readable reason.
    pub fn reason(&self) -> &'static str {
        match self {
            Unfixable::SameStatement(_) => "same-statement",
            Unfixable::InterBlock(_) => "inter-block",
            Unfixable::DivergentRegion(_) => "divergent-region",
            Unfixable::NoSourcePosition(_) => "no-source-position",
            Unfixable::DivergentBarrier(_) => "barrier-divergence",
            Unfixable::NoPlacement => "no-placement",
        }
    }
}

/// One inserted barrier.
#[derive(Clone, Debug)]
pub struct Placed {
    /// Where.
    pub pos: Position,
    /// Its cost under the cost model.
    pub cost: f64,
    /// The races of the original report this barrier's position separates.
    pub covers: Vec<usize>,
}

/// The result of synthesis.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// No race to begin with.
    AlreadyClean,
    /// A verified placement.
    Fixed {
        /// Barriers to insert, in text order.
        barriers: Vec<Placed>,
        /// Total cost.
        cost: f64,
    },
    /// A verified placement that removes every race barriers can remove; the others remain.
    Partial {
        /// Barriers to insert, in text order.
        barriers: Vec<Placed>,
        /// Total cost.
        cost: f64,
        /// The races that remain (never a divergent barrier: those make the kernel unfixable).
        unfixable: Vec<Unfixable>,
    },
    /// No barrier placement can fix the kernel.
    Unfixable(Vec<Unfixable>),
    /// The oracle could not decide (solver unknown, unsupported construct, round limit).
    Inconclusive(String),
}

/// Synthesis result with the initial report (for rendering) and statistics.
#[derive(Clone, Debug)]
pub struct Synthesis {
    /// The oracle's report on the input kernel (suppressed findings removed).
    pub initial: Report,
    /// The suppressed findings of the input kernel.
    pub suppressed: Report,
    /// What to do.
    pub outcome: Outcome,
    /// Counters.
    pub stats: SynthStats,
}

/// Whether every race of `races` is one no block-wide barrier of `k` can remove.
pub fn all_unfixable(k: &Kernel, races: &[Race], opts: &SynthOptions) -> bool {
    let space = Space::new(k, opts);
    races.iter().all(|r| unfixable_cause(&space, r).is_some())
}

/// Why no barrier among `space`'s positions can remove race `r`, if none can.
fn unfixable_cause(space: &Space, r: &Race) -> Option<Unfixable> {
    if r.scope == RaceScope::InterBlock {
        return Some(Unfixable::InterBlock(r.clone()));
    }
    if !clauses(space, r, &BTreeSet::new()).iter().any(|c| c.is_empty()) {
        return None;
    }
    let same_stmt = r.first.label == r.second.label && r.relations.contains(&IterRelation::SameIteration);
    Some(if same_stmt {
        Unfixable::SameStatement(r.clone())
    } else {
        Unfixable::DivergentRegion(r.clone())
    })
}

/// A race of one statement with itself, within an iteration and across iterations, whose
/// cross-iteration instances barriers can order: the race to place for (without its
/// same-iteration relation). Its same-iteration instances may be benign once the others are
/// ordered (every thread of a warp stores the value they agree on); the candidate's check says.
fn same_statement_across_iterations(space: &Space, r: &Race) -> Option<Race> {
    let same_stmt = r.first.label == r.second.label && r.relations.contains(&IterRelation::SameIteration);
    if !same_stmt || r.scope == RaceScope::InterBlock {
        return None;
    }
    let mut reduced = r.clone();
    reduced.relations.retain(|rel| *rel != IterRelation::SameIteration);
    let separable =
        !reduced.relations.is_empty() && !clauses(space, &reduced, &BTreeSet::new()).iter().any(|c| c.is_empty());
    separable.then_some(reduced)
}

/// The options of synthesis's first (planning) oracle call, given those of its candidate
/// checks (`quiet`): one racing access pair per pair of source places is what its clauses
/// need, and a race's loop relation may be assumed. Every placement is verified with the full
/// check, which does not ask again the conflict queries this call proved race-free (barriers
/// only add order).
pub fn planning_options(quiet: &sdv::SdvOptions) -> sdv::SdvOptions {
    sdv::SdvOptions {
        one_race_per_place_pair: true,
        assume_loop_relations: true,
        // The kernel is one to fix: many of its first queries are satisfiable, and a search
        // that finds a model saves a solver call of 5-30 ms. Half as long again, the searches
        // (and the short ones of a pinned loop relation) find md5_batch's first race, which
        // needs 45,000-60,000 nodes and otherwise costs a 5 ms call; each miss costs about
        // 0.1 ms more. A check (mostly race-free kernels) keeps the default.
        search_nodes: sdv::SEARCH_NODES * 3 / 2,
        ..quiet.clone()
    }
}

/// Synthesizes a verified block-wide barrier placement for `k`.
pub fn synthesize(k: &Kernel, opts: &SynthOptions) -> Synthesis {
    let start = Instant::now();
    let mut stats = SynthStats::default();
    let sdv_opts = sdv::SdvOptions {
        timeout_ms: opts.timeout_ms,
        deadline: opts.kernel_timeout.map(|t| start + t),
        strict: opts.strict,
        // Witnesses with small parameter values cost a few solver calls per race; on a racy
        // kernel with hundreds of racing pairs that doubled the time of `fix`, for witnesses
        // only the rare unfixable message shows (any model is still a real execution).
        small_witnesses: false,
        ..Default::default()
    };
    let (report, proofs) = sdv::check_proving(k, &planning_options(&sdv_opts));
    stats.planning = start.elapsed();
    let (initial, suppressed) = opts.split_suppressed(k, report);
    stats.oracle_calls += 1;
    let quiet = sdv_opts.clone();
    let finish = |outcome: Outcome, mut stats: SynthStats, initial: Report| {
        stats.time = start.elapsed();
        Synthesis {
            initial,
            suppressed: suppressed.clone(),
            outcome,
            stats,
        }
    };
    if let Some(i) = initial.inconclusive.first() {
        return finish(Outcome::Inconclusive(i.message.clone()), stats, initial);
    }
    if initial.races.is_empty() && initial.divergences.is_empty() {
        return finish(Outcome::AlreadyClean, stats, initial);
    }
    // Positions where a barrier is uniform once the reads that can agree across threads do (a
    // shared flag behind a barrier this placement may add); should that placement not verify,
    // the positions that are uniform as the kernel stands.
    // The planning call's uniformity is the kernel's (it does not assume settled reads).
    // Two independent analyses (each in a Z3 context of its own): side by side.
    let (feasible, settled_unif) = rayon::join(
        || Space::feasibility(k, proofs.uniformity()),
        || sdv::uniformity_if_reads_settle_given(k, proofs.uniformity()),
    );
    let plain = Space::build_with(k, opts, Level::Block, proofs.uniformity().clone(), &feasible);
    let settled = Space::build_with(k, opts, Level::Block, settled_unif, &feasible);
    if settled.positions != plain.positions {
        // What remains to order once those reads settle (the author's barriers then align).
        let planned = opts.unsuppressed(
            k,
            sdv::check(
                k,
                &sdv::SdvOptions {
                    assume_settled_reads: true,
                    ..quiet.clone()
                },
            ),
        );
        let mut tried = stats.clone();
        tried.oracle_calls += 1;
        let exact = HashSet::new();
        let outcome = place(
            k,
            opts,
            &settled,
            (&planned, &initial, &exact),
            (&quiet, &proofs),
            &mut tried,
        );
        if matches!(outcome, Outcome::Fixed { .. } | Outcome::Partial { .. }) {
            return finish(outcome, tried, initial);
        }
        stats.oracle_calls = tried.oracle_calls;
        stats.maxsat_calls = tried.maxsat_calls;
    }
    let assumed = assumed_loop_relations(&initial);
    let outcome = place(
        k,
        opts,
        &plain,
        (&initial, &initial, &assumed),
        (&quiet, &proofs),
        &mut stats,
    );
    finish(outcome, stats, initial)
}

/// The races of a planning report whose loop relation was assumed (see
/// [`sdv::SdvOptions::assume_loop_relations`]).
fn assumed_loop_relations(planned: &Report) -> HashSet<RaceKey> {
    planned
        .races
        .iter()
        .filter(|r| r.relations.iter().any(is_loop_relation))
        .map(key)
        .collect()
}

/// Whether `rel` says a race needs a loop's iteration other than its last or first.
fn is_loop_relation(rel: &IterRelation) -> bool {
    matches!(
        rel,
        IterRelation::NotLastIteration(_) | IterRelation::NotFirstIteration(_)
    )
}

/// The placement loop of [`synthesize`] over one candidate space: the races of `planned` are
/// the constraints to start from (those in `assumed` with a loop relation the planning check
/// assumed), those of `reported` (the input's report, shown to the user) what each barrier is
/// said to cover; candidates are checked with `quiet`, reusing `proofs`.
fn place(
    k: &Kernel,
    opts: &SynthOptions,
    space: &Space,
    (planned, reported, assumed): (&Report, &Report, &HashSet<RaceKey>),
    (quiet, proofs): (&sdv::SdvOptions, &sdv::Proofs<'_>),
    stats: &mut SynthStats,
) -> Outcome {
    let Triage {
        fixable,
        unfixable,
        pending,
    } = match triage(k, space, planned) {
        Ok(split) => split,
        Err(outcome) => return outcome,
    };
    let refinement = Refinement {
        k,
        opts,
        space,
        reported,
        quiet,
        proofs,
        unfixable_keys: unfixable
            .iter()
            .filter_map(Unfixable::race)
            .map(|r| (key(r), r.scope))
            .collect(),
        unfixable,
        known: fixable,
        pending,
        assumed: assumed.clone(),
        narrow: BTreeSet::new(),
    };
    refinement.run(stats)
}

/// The input's findings, split by what a placement can do about them.
struct Triage {
    /// The races a placement must remove.
    fixable: Vec<Race>,
    /// The causes no barrier among the positions removes.
    unfixable: Vec<Unfixable>,
    /// Same-statement races placed for across iterations only (their reduced copies are in
    /// `fixable`): unfixable after all if a candidate still has them within an iteration.
    pending: Vec<Race>,
}

/// Splits the input's findings into the races a placement must remove and the causes no
/// barrier among `space`'s positions removes; `Err` is the outcome when nothing can be placed.
fn triage(k: &Kernel, space: &Space, planned: &Report) -> Result<Triage, Outcome> {
    // Unfixable races and divergent barriers in the input; the other races are what the
    // placement must remove.
    let mut unfixable: Vec<Unfixable> = planned
        .divergences
        .iter()
        .filter(|d| d.across_blocks || space.unif.level(d.barrier) != Level::Block)
        .map(|d| Unfixable::DivergentBarrier(d.barrier))
        .collect();
    let mut fixable: Vec<Race> = Vec::new();
    let mut pending: Vec<Race> = Vec::new();
    for r in &planned.races {
        match unfixable_cause(space, r) {
            Some(u @ Unfixable::SameStatement(_)) => match same_statement_across_iterations(space, r) {
                Some(reduced) => {
                    pending.push(r.clone());
                    fixable.push(reduced);
                }
                None => unfixable.push(u),
            },
            Some(u) => unfixable.push(u),
            None => fixable.push(r.clone()),
        }
    }
    // A divergent barrier of the author's makes every placement diverge; with nothing fixable
    // there is nothing to write (nor anything to make the author's barriers uniform).
    let diverges = unfixable.iter().any(|u| matches!(u, Unfixable::DivergentBarrier(_)));
    if fixable.is_empty() && !planned.divergences.is_empty() && !diverges {
        unfixable.extend(
            planned
                .divergences
                .iter()
                .map(|d| Unfixable::DivergentBarrier(d.barrier)),
        );
    }
    if diverges || (fixable.is_empty() && !unfixable.is_empty()) {
        return Err(Outcome::Unfixable(unfixable));
    }
    if let Some(r) = fixable.iter().find(|r| r.assumed) {
        let msg = format!(
            "the solver could not decide whether {} and {} race; the placement could not be verified",
            k.loc(r.first.span),
            k.loc(r.second.span)
        );
        return Err(Outcome::Inconclusive(msg));
    }
    Ok(Triage {
        fixable,
        unfixable,
        pending,
    })
}

/// The state [`place`]'s rounds share: the races to separate, the options narrowed so far,
/// and the races no barrier removes (left out of every candidate's report).
struct Refinement<'a> {
    k: &'a Kernel,
    opts: &'a SynthOptions,
    space: &'a Space,
    /// The input's report: the races each barrier is said to cover.
    reported: &'a Report,
    /// Oracle options for candidates (their witnesses are never shown).
    quiet: &'a sdv::SdvOptions,
    /// The input's race-free conflict queries: a candidate's check does not ask them again.
    proofs: &'a sdv::Proofs<'a>,
    /// Races no barrier removes, and other causes the outcome reports.
    unfixable: Vec<Unfixable>,
    /// Those races as (pair, array, scope): they stay in every placement's report.
    unfixable_keys: HashSet<(RaceKey, RaceScope)>,
    /// The races every placement must separate.
    known: Vec<Race>,
    /// Same-statement races `known` holds only across iterations (see [`Triage::pending`]).
    pending: Vec<Race>,
    /// Known races whose loop relation the planning check assumed, until a candidate's check
    /// finds them again (and with them the relation).
    assumed: HashSet<RaceKey>,
    /// Races whose options were narrowed, with the loop depth (or [`NOT_LAST_NARROWED`]).
    narrow: BTreeSet<(RaceKey, u32)>,
}

impl Refinement<'_> {
    /// Rounds of solve, verify and refine until a placement verifies or none can.
    fn run(mut self, stats: &mut SynthStats) -> Outcome {
        let mut round = 0;
        loop {
            round += 1;
            stats.rounds = round;
            if round > self.opts.max_rounds {
                return Outcome::Inconclusive("refinement did not converge".into());
            }
            let chosen = match self.choose(round, stats) {
                Ok(c) => c,
                Err(outcome) => return outcome,
            };
            let report = match self.check(&chosen, stats) {
                Ok(r) => r,
                Err(outcome) => return outcome,
            };
            if self.settle_pending(&report) {
                if self.known.is_empty() {
                    return Outcome::Unfixable(self.unfixable);
                }
                continue;
            }
            if report.is_clean() {
                return self.verified(&chosen);
            }
            if !report.divergences.is_empty()
                || !report.inconclusive.is_empty()
                || report.races.iter().any(|r| r.assumed)
            {
                let msg = report
                    .inconclusive
                    .first()
                    .map(|i| i.message.clone())
                    .unwrap_or_else(|| "a candidate placement could not be verified".into());
                return Outcome::Inconclusive(msg);
            }
            if !self.refine(report.races) {
                return Outcome::Inconclusive(
                    "the oracle still reports races that the encoding cannot separate".into(),
                );
            }
        }
    }

    /// The MaxSAT instance of one round: a soft clause per position (its cost), a hard clause
    /// per option set of every known race; one variable per position.
    fn problem(&self, round: u32) -> (MaxSatProblem, Vec<Var>) {
        // Integer weights: scale so the smallest cost is at least 1000 units.
        let min_cost = self
            .space
            .positions
            .iter()
            .map(|p| p.1)
            .fold(f64::INFINITY, f64::min)
            .max(1e-9);
        let scale = 1000.0 / min_cost.min(1.0);
        let mut p = MaxSatProblem::new();
        let vars: Vec<Var> = self.space.positions.iter().map(|_| p.new_var()).collect();
        for (i, (_, cost)) in self.space.positions.iter().enumerate() {
            p.add_soft(vars[i].neg_lit(), (cost * scale).round().max(1.0) as u64);
        }
        for r in &self.known {
            for c in clauses(self.space, r, &self.narrow) {
                let lits: Vec<Lit> = c.iter().map(|&i| vars[i].pos_lit()).collect();
                p.add_hard(&lits);
            }
        }
        if let Some(dir) = &self.opts.dump_wcnf {
            let _ = std::fs::create_dir_all(dir);
            let path = dir.join(format!("{}-round{round}.wcnf", self.k.name));
            if let Ok(mut f) = std::fs::File::create(&path) {
                let _ = p.write_wcnf(&mut f);
            }
        }
        (p, vars)
    }

    /// The cheapest placement separating every known race, as indexes of space positions.
    fn choose(&self, round: u32, stats: &mut SynthStats) -> Result<Vec<usize>, Outcome> {
        let (p, vars) = self.problem(round);
        let mut solver = self.opts.algorithm.solver();
        stats.maxsat_calls += 1;
        let model = match solver.solve(&p) {
            Ok(MaxSatResult::Optimal { model, .. }) => model,
            Ok(MaxSatResult::Unsat) => return Err(Outcome::Unfixable(vec![Unfixable::NoPlacement])),
            Err(MaxSatError::WeightOverflow) => {
                return Err(Outcome::Inconclusive("cost weights overflow; lower --cost-loop".into()))
            }
            Err(e) => return Err(Outcome::Inconclusive(format!("MaxSAT solver failed: {e:?}"))),
        };
        Ok((0..vars.len())
            .filter(|&i| lit_value(&model, vars[i].pos_lit()))
            .collect())
    }

    /// The oracle's report on the kernel with barriers at `chosen`, without the unfixable races.
    fn check(&self, chosen: &[usize], stats: &mut SynthStats) -> Result<Report, Outcome> {
        let positions: Vec<Position> = chosen.iter().map(|&i| self.space.positions[i].0).collect();
        let report = match sdv::check_with_barriers(self.proofs, &positions, self.quiet) {
            Ok(r) => r,
            Err(pos) => return Err(Outcome::Inconclusive(format!("internal: cannot insert at {pos:?}"))),
        };
        let mut report = self.opts.unsuppressed(self.k, report);
        stats.oracle_calls += 1;
        report
            .races
            .retain(|r| !self.unfixable_keys.contains(&(key(r), r.scope)));
        Ok(report)
    }

    /// Pending same-statement races a candidate still has within an iteration: unfixable, and
    /// no longer placed for (barriers that order only their other instances remove no race).
    /// Whether any was.
    fn settle_pending(&mut self, report: &Report) -> bool {
        let real: Vec<Race> = self
            .pending
            .iter()
            .filter(|p| {
                report
                    .races
                    .iter()
                    .any(|r| key(r) == key(p) && r.relations.contains(&IterRelation::SameIteration))
            })
            .cloned()
            .collect();
        for r in &real {
            self.pending.retain(|p| key(p) != key(r));
            self.known.retain(|x| key(x) != key(r));
            self.unfixable_keys.insert((key(r), r.scope));
            self.unfixable.push(Unfixable::SameStatement(r.clone()));
        }
        !real.is_empty()
    }

    /// The outcome of a verified placement: its barriers with the reported races each covers.
    fn verified(self, chosen: &[usize]) -> Outcome {
        let barriers = chosen
            .iter()
            .map(|&i| {
                let covers = self
                    .reported
                    .races
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| clauses(self.space, r, &self.narrow).iter().any(|c| c.contains(&i)))
                    .map(|(j, _)| j)
                    .collect();
                Placed {
                    pos: self.space.positions[i].0,
                    cost: self.space.positions[i].1,
                    covers,
                }
            })
            .collect::<Vec<_>>();
        let cost = barriers.iter().map(|b| b.cost).sum();
        if self.unfixable.is_empty() {
            Outcome::Fixed { barriers, cost }
        } else {
            Outcome::Partial {
                barriers,
                cost,
                unfixable: self.unfixable,
            }
        }
    }

    /// Replaces the assumed loop relations of known race `i` by those of `found`, the same race
    /// in a candidate's report (whose check asked); whether that changed them (if not, the
    /// relation holds and the options it offered did not separate the race: the usual
    /// narrowing applies).
    fn relearned(&mut self, i: usize, found: &Race) -> bool {
        let mut rels: BTreeSet<IterRelation> = self.known[i]
            .relations
            .iter()
            .filter(|r| !is_loop_relation(r))
            .copied()
            .collect();
        rels.extend(found.relations.iter().copied());
        let rels: Vec<IterRelation> = rels.into_iter().collect();
        let changed = rels != self.known[i].relations;
        self.known[i].relations = rels;
        changed
    }

    /// Learns from a candidate's races: new races become constraints; races still present
    /// with a back-edge relation get the narrow option. Whether anything changed.
    fn refine(&mut self, races: Vec<Race>) -> bool {
        let mut progress = false;
        let known_keys: HashMap<RaceKey, usize> = self.known.iter().enumerate().map(|(i, r)| (key(r), i)).collect();
        for r in races {
            match known_keys.get(&key(&r)) {
                None => {
                    self.known.push(r);
                    progress = true;
                }
                Some(&i) if self.assumed.remove(&key(&r)) && self.relearned(i, &r) => progress = true,
                Some(&i) => {
                    let mut rels: BTreeSet<IterRelation> = self.known[i].relations.iter().copied().collect();
                    for rel in &r.relations {
                        progress |= rels.insert(*rel);
                        match rel {
                            IterRelation::AcrossBackEdge(d) | IterRelation::AcrossBackEdgeReversed(d) => {
                                progress |= self.narrow.insert((key(&r), *d));
                            }
                            IterRelation::NotLastIteration(_) => {
                                progress |= self.narrow.insert((key(&r), NOT_LAST_NARROWED));
                            }
                            IterRelation::NotFirstIteration(_) => {
                                progress |= self.narrow.insert((key(&r), NOT_FIRST_NARROWED));
                            }
                            _ => {}
                        }
                    }
                    self.known[i].relations = rels.into_iter().collect();
                }
            }
        }
        progress
    }
}

/// The naive baseline of the AutoSync paper: a barrier at every block-uniform position, then
/// remove them one at a time while the oracle still verifies.
pub fn synthesize_naive(k: &Kernel, opts: &SynthOptions) -> Synthesis {
    let start = Instant::now();
    let mut stats = SynthStats::default();
    let sdv_opts = sdv::SdvOptions {
        timeout_ms: opts.timeout_ms,
        deadline: opts.kernel_timeout.map(|t| start + t),
        strict: opts.strict,
        // As in `synthesize`: witnesses with small values only for what is shown.
        small_witnesses: false,
        ..Default::default()
    };
    let (initial, suppressed) = opts.split_suppressed(k, sdv::check(k, &sdv_opts));
    stats.oracle_calls += 1;
    let done = |outcome, mut stats: SynthStats, initial| {
        stats.time = start.elapsed();
        Synthesis {
            initial,
            suppressed: suppressed.clone(),
            outcome,
            stats,
        }
    };
    if !initial.inconclusive.is_empty() {
        return done(
            Outcome::Inconclusive(initial.inconclusive[0].message.clone()),
            stats,
            initial,
        );
    }
    if initial.is_clean() {
        return done(Outcome::AlreadyClean, stats, initial);
    }
    let space = Space::new(k, opts);
    let mut keep: Vec<bool> = vec![true; space.positions.len()];
    let verify = |keep: &[bool], stats: &mut SynthStats| -> bool {
        let inserts: Vec<(Position, Barrier)> = space
            .positions
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(p, _)| (p.0, Barrier::Block))
            .collect();
        stats.oracle_calls += 1;
        match insert_barriers(k, &inserts) {
            Ok((c, _)) => opts.unsuppressed(k, sdv::check(&c, &sdv_opts)).is_clean(),
            Err(_) => false,
        }
    };
    if !verify(&keep, &mut stats) {
        return done(Outcome::Unfixable(vec![Unfixable::NoPlacement]), stats, initial);
    }
    // Costliest first, so the survivors tend to be cheap.
    let mut order: Vec<usize> = (0..keep.len()).collect();
    order.sort_by(|&x, &y| space.positions[y].1.total_cmp(&space.positions[x].1));
    for i in order {
        keep[i] = false;
        if !verify(&keep, &mut stats) {
            keep[i] = true;
        }
    }
    let barriers: Vec<Placed> = space
        .positions
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(p, _)| Placed {
            pos: p.0,
            cost: p.1,
            covers: vec![],
        })
        .collect();
    let cost = barriers.iter().map(|b| b.cost).sum();
    done(Outcome::Fixed { barriers, cost }, stats, initial)
}

/// Cost of the block-wide barriers already in a kernel (for comparison with a synthesized one).
pub fn existing_barrier_cost(k: &Kernel, opts: &SynthOptions) -> (u32, f64) {
    let tree = LabelTree::new(k);
    let mut n = 0;
    let mut cost = 0.0;
    autosync_oracle::tree::for_each_stmt(&k.body, &mut |s| {
        if let autosync_oracle::ir::StmtKind::Barrier(b, _) = &s.kind {
            if b.is_block_wide() {
                let info = tree.get(s.label);
                n += 1;
                cost += opts.cost_loop.powi(info.cost_loops() as i32) * opts.cost_if.powi(info.conds() as i32);
            }
        }
    });
    (n, cost)
}

/// Positions by index for tests: every block-uniform candidate position and its cost.
pub fn block_uniform_positions(k: &Kernel, opts: &SynthOptions) -> Vec<(Position, f64)> {
    Space::new(k, opts).positions
}

/// Races of a report grouped by label pair, for rendering.
pub fn race_lines(k: &Kernel, races: &[Race]) -> BTreeMap<usize, (u32, u32)> {
    races
        .iter()
        .enumerate()
        .map(|(i, r)| (i, (k.line(r.first.span), k.line(r.second.span))))
        .collect()
}

/// A cheaper verified placement that also removes barriers the author wrote (`--minimize`).
#[derive(Clone, Debug)]
pub struct Minimized {
    /// Existing barrier statements to delete.
    pub remove: Vec<Label>,
    /// Barriers to insert (positions in the kernel without the removed ones; labels unchanged).
    pub insert: Vec<Placed>,
    /// Cost of the author's barriers plus what plain synthesis would add.
    pub old_cost: f64,
    /// Cost after minimization.
    pub new_cost: f64,
    /// Oracle calls spent.
    pub oracle_calls: u32,
}

/// The position an existing barrier statement occupies: after its previous sibling, or at the
/// start of its block. `None` when it is not a place synthesis could choose.
fn barrier_positions(b: &autosync_oracle::ir::Block, out: &mut Vec<(Label, Position)>) {
    use autosync_oracle::ir::StmtKind;
    for (i, s) in b.stmts.iter().enumerate() {
        match &s.kind {
            StmtKind::Barrier(bar, _) if bar.is_block_wide() && s.emit_after && b.braced => {
                let pos = match i.checked_sub(1).map(|j| &b.stmts[j]) {
                    Some(prev) if prev.emit_after => Some(Position::After(prev.label)),
                    Some(_) => None,
                    None if b.emit_start => Some(Position::BlockStart(b.label)),
                    None => None,
                };
                if let Some(p) = pos {
                    out.push((s.label, p));
                }
            }
            StmtKind::If { then_blk, else_blk, .. } => {
                barrier_positions(then_blk, out);
                barrier_positions(else_blk, out);
            }
            StmtKind::Loop(Loop { body, .. }) => barrier_positions(body, out),
            _ => {}
        }
    }
}

/// Re-synthesizes with the author's removable barriers taken out; returns a plan only when the
/// verified result is strictly cheaper than keeping them.
pub fn minimize(k: &Kernel, opts: &SynthOptions) -> Option<Minimized> {
    let mut existing = Vec::new();
    barrier_positions(&k.body, &mut existing);
    if existing.is_empty() {
        return None;
    }
    let tree = LabelTree::new(k);
    let cost_at = |l: Label| {
        let info = tree.get(l);
        opts.cost_loop.powi(info.cost_loops() as i32) * opts.cost_if.powi(info.conds() as i32)
    };
    let kept_cost: f64 = existing.iter().map(|(l, _)| cost_at(*l)).sum();
    let keep = synthesize(k, opts);
    let mut oracle_calls = keep.stats.oracle_calls;
    let added = match keep.outcome {
        Outcome::AlreadyClean => 0.0,
        Outcome::Fixed { cost, .. } => cost,
        _ => return None,
    };
    let labels: Vec<Label> = existing.iter().map(|(l, _)| *l).collect();
    let stripped = autosync_oracle::tree::remove_stmts(k, &labels);
    let redo = synthesize(&stripped, opts);
    oracle_calls += redo.stats.oracle_calls;
    let (chosen, new_cost) = match redo.outcome {
        Outcome::Fixed { barriers, cost } => (barriers, cost),
        Outcome::AlreadyClean => (vec![], 0.0),
        _ => return None,
    };
    let old_cost = kept_cost + added;
    if new_cost >= old_cost - 1e-9 {
        return None;
    }
    let remove = existing
        .iter()
        .filter(|(_, p)| !chosen.iter().any(|c| c.pos == *p))
        .map(|(l, _)| *l)
        .collect();
    let insert = chosen
        .into_iter()
        .filter(|c| !existing.iter().any(|(_, p)| *p == c.pos))
        .collect();
    Some(Minimized {
        remove,
        insert,
        old_cost,
        new_cost,
        oracle_calls,
    })
}
