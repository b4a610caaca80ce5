//! Asking the jobs: alike jobs grouped (the rest of a group asked as one disjunction after a
//! cheap race-free first one), groups spread round-robin over `LANES` Z3 contexts, mirrored
//! jobs answered by their forward job, and each race classified (benign, loop relations).

use super::extras::Extras;
use super::jobs::{Answer, Job, Nature, Site};
use super::levels::Uniformity;
use super::mirror;
use super::options::SdvOptions;
use super::query::{Bound, Engine, Outcome, Pairing, Query, QueryStat, Settled};
use super::reuse::{self, Proofs};
use crate::ir::*;
use crate::report::*;
use crate::smt::LANES;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// Asks the jobs on the lanes, but for those with a mirror (see [`mirror::mirrors`]), which take
/// its answer mirrored: the answers in job order, the number of solver calls and of queries
/// settled without one, and whether wall-clock time cut the answers short. Profiles the solver calls into `x`.
pub(super) fn answer(
    k: &Kernel,
    unif: &Uniformity,
    opts: &SdvOptions,
    (jobs, mirrors): (&[Job], &[Option<usize>]),
    sites: &[Site],
    x: &mut Extras,
) -> (Vec<(usize, Answer)>, (u64, Settled), TimeCut) {
    let groups = groups(jobs, sites, |n| mirrors[n].is_none());
    let lanes = run_lanes(k, unif, opts, jobs, &groups, x.profile.is_some());
    let mut answers: Vec<(usize, Answer)> = Vec::new();
    let mut queries = 0;
    let mut settled = Settled::default();
    let mut cut = TimeCut::default();
    for lane in lanes {
        answers.extend(lane.answers);
        queries += lane.queries;
        settled.divisible += lane.settled.divisible;
        settled.injective += lane.settled.injective;
        cut.expired |= lane.expired;
        cut.wall_limited |= lane.wall_limited;
        if let Some(p) = &mut x.profile {
            p.queries.extend(lane.stats);
        }
    }
    let by_job: HashMap<usize, &Answer> = answers.iter().map(|(n, a)| (*n, a)).collect();
    let mirrored: Vec<(usize, Answer)> = (0..jobs.len())
        .filter_map(|n| {
            let (outcome, nature, _) = by_job.get(&mirrors[n]?)?;
            Some((n, (mirror::mirrored(outcome), nature.clone(), jobs[n].rel)))
        })
        .collect();
    answers.extend(mirrored);
    answers.sort_by_key(|(n, _)| *n);
    (answers, (queries, settled), cut)
}

/// How wall-clock time cut a check short.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TimeCut {
    /// The kernel's deadline passed: some jobs were not asked.
    pub(super) expired: bool,
    /// Some query stopped at its wall-clock limit (its answer depends on the machine's load).
    pub(super) wall_limited: bool,
}

/// The proofs of the jobs whose query was unsatisfiable.
pub(super) fn proved<'k>(
    k: &'k Kernel,
    inputs: reuse::WalkInputs,
    jobs: &[Job],
    answers: &[(usize, Answer)],
) -> Proofs<'k> {
    let mut p = Proofs::new(k, inputs);
    for (n, (outcome, _, _)) in answers {
        if matches!(outcome, Outcome::Unsat) {
            let j = &jobs[*n];
            p.add(reuse::asked(&j.q, j.scope, j.rel));
        }
    }
    p
}

/// Runs the groups of jobs round-robin on [`LANES`] lanes, each with its own Z3 context, on
/// rayon's pool: the answers do not depend on how many cores the machine has.
pub(super) fn run_lanes(
    k: &Kernel,
    unif: &Uniformity,
    opts: &SdvOptions,
    jobs: &[Job],
    groups: &[Vec<usize>],
    profiling: bool,
) -> Vec<Lane> {
    (0..LANES.min(groups.len()))
        .into_par_iter()
        .map(|lane| {
            crate::smt::fresh_context(|| {
                let mut engine = Engine::new(k, unif, opts.timeout_ms, opts.deadline);
                engine.small_witnesses = opts.small_witnesses;
                engine.assume_loop_relations = opts.assume_loop_relations;
                engine.search_nodes = opts.search_nodes;
                engine.injective_test = opts.injective_test;
                engine.profile = profiling.then(Vec::new);
                let mut answers = Vec::new();
                let mut racy = opts.one_race_per_place_pair.then(HashSet::new);
                for group in groups.iter().skip(lane).step_by(LANES) {
                    if engine.expired {
                        break;
                    }
                    run_group(&mut engine, jobs, group, opts.timeout_ms, &mut answers, racy.as_mut());
                }
                Lane {
                    answers,
                    queries: engine.queries,
                    settled: engine.settled,
                    expired: engine.expired,
                    wall_limited: engine.wall_limited,
                    stats: engine.profile.take().unwrap_or_default(),
                }
            })
        })
        .collect()
}

/// Runs one group of jobs, adding (job index, answer) to `answers`. The first job alone; when
/// it was cheap and race-free, the rest are asked together first (the jobs of a group are
/// alike: they tend to cost the same).
/// With `racy` (see [`SdvOptions::one_race_per_place_pair`]), jobs of place pairs already known
/// to race are not asked.
pub(super) fn run_group(
    engine: &mut Engine,
    jobs: &[Job],
    group: &[usize],
    timeout_ms: u32,
    answers: &mut Vec<(usize, Answer)>,
    mut racy: Option<&mut HashSet<PlacePair>>,
) {
    let known = |racy: &Option<&mut HashSet<PlacePair>>, n: usize| {
        racy.as_deref().is_some_and(|r| r.contains(&place_pair(&jobs[n])))
    };
    let group: Vec<usize> = group.iter().copied().filter(|&n| !known(&racy, n)).collect();
    let Some((&first, rest)) = group.split_first() else {
        return;
    };
    let spent = engine.spent;
    let answer = run_job(engine, &jobs[first]);
    let cost = engine.spent - spent;
    let cheap = matches!(answer.0, Outcome::Unsat) && cost <= CHEAP_QUERY;
    note_racy(&jobs[first], &answer, racy.as_deref_mut());
    answers.push((first, answer));
    if rest.len() > 1 && cheap && !engine.expired {
        let qs: Vec<&Query> = rest.iter().map(|&n| &jobs[n].q).collect();
        // A probe that succeeds costs 1–3 times the first query on the realistic kernels
        // (whatever the group's size), 5–30 times on long straight-line ones (queries that differ
        // in constants: Singe-shaped kernels, issue 25), still well under asking each; one
        // that would fail is cut off at the factor's worth.
        let budget = crate::smt::millis_of(PROBE_FACTOR * cost);
        if engine.none_of(&qs, budget.min(timeout_ms.div_ceil(32))) {
            answers.extend(
                rest.iter()
                    .map(|&n| (n, (Outcome::Unsat, Nature::Harmful, jobs[n].rel))),
            );
            return;
        }
    }
    for &n in rest {
        if engine.expired {
            break;
        }
        if known(&racy, n) {
            continue;
        }
        let answer = run_job(engine, &jobs[n]);
        note_racy(&jobs[n], &answer, racy.as_deref_mut());
        answers.push((n, answer));
    }
}

/// Where the two accesses are written: their statements' spans (a macro's expansion or an
/// inlined call is located at its use: one source place, with no barrier position inside, so
/// its statements have the same barrier positions around them; an inlined body's accesses keep
/// their spans in the callee, which every call shares, so those are not the place), their
/// arrays, whether they are one statement, the race's scope and the job's iteration relation.
pub(super) type PlacePair = ([Span; 2], [ArrayId; 2], bool, RaceScope, Option<IterRelation>);

pub(super) fn place_pair(j: &Job) -> PlacePair {
    let (a, b) = (&j.q.a, &j.q.b);
    (j.places, [a.2.array, b.2.array], a.0 == b.0, j.scope, j.rel)
}

/// Records a harmful race of the job's place pair.
pub(super) fn note_racy(j: &Job, answer: &Answer, racy: Option<&mut HashSet<PlacePair>>) {
    if let (Some(racy), (Outcome::Sat(_), Nature::Harmful, _)) = (racy, answer) {
        racy.insert(place_pair(j));
    }
}

/// Most jobs in one group (see [`groups`]).
pub(super) const GROUP_SIZE: usize = 9;

/// A group's probe (see [`Engine::none_of`]) may cost this many times its first query (and at
/// most 1/32 of the per-query timeout). At 3 the probes of the Singe-shaped bench kernel mostly
/// ran out (2,367 solver calls); at 32 nearly all succeed (about 900 calls, the check about
/// half as long).
pub(super) const PROBE_FACTOR: u64 = 32;

/// Z3 resource units under which a group's first query counts as cheap (5–15 ms of solver
/// work on the realistic kernels): then the rest of the group is asked together (see
/// [`Engine::none_of`]).
pub(super) const CHEAP_QUERY: u64 = 56_000;

/// The jobs to ask (those `asked` keeps) in groups that are first asked together (see
/// [`Engine::none_of`]): jobs of one scope, pairing and pair of arrays, on walks of the same
/// shared loops, in job order, at most [`GROUP_SIZE`] each. Groups are in the order of their
/// first jobs.
pub(super) fn groups(jobs: &[Job], sites: &[Site], asked: impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
    type Key = (RaceScope, Pairing, Vec<Label>, ArrayId, ArrayId);
    let key = |j: &Job| -> Key {
        let (a, b) = (&sites[j.sites.0], &sites[j.sites.1]);
        (j.scope, j.q.pairing, j.q.shared.clone(), a.access.array, b.access.array)
    };
    let mut out: Vec<Vec<usize>> = Vec::new();
    // The group of each key that still has room.
    let mut open: HashMap<Key, usize> = HashMap::new();
    for (n, j) in jobs.iter().enumerate().filter(|(n, _)| asked(*n)) {
        match open.get(&key(j)) {
            Some(&g) if out[g].len() < GROUP_SIZE => out[g].push(n),
            _ => {
                open.insert(key(j), out.len());
                out.push(vec![n]);
            }
        }
    }
    out
}

/// What one lane answered: (job index, answer) in job order, and its solver statistics.
pub(super) struct Lane {
    pub(super) answers: Vec<(usize, Answer)>,
    pub(super) queries: u64,
    pub(super) settled: Settled,
    pub(super) expired: bool,
    pub(super) wall_limited: bool,
    pub(super) stats: Vec<QueryStat>,
}

/// Runs a job: its query, classified (see [`run_classified`]); for a race whose first access is
/// in a loop the second is after, whether it needs that loop's last iteration; failing that,
/// for one whose second access is in loops the first is before, whether it needs an iteration
/// of one of them other than the first. Returns the outcome, whether the race is benign, and
/// the relation to record.
pub(super) fn run_job(engine: &mut Engine, job: &Job) -> Answer {
    let (outcome, benign) = run_classified(engine, &job.q, job.own_read);
    let benign = match (benign, &outcome) {
        (true, _) => Nature::Benign,
        (false, Outcome::Sat(_)) => engine
            .overlap_parameters(&job.q)
            .map_or(Nature::Harmful, Nature::Overlap),
        _ => Nature::Harmful,
    };
    if !matches!(outcome, Outcome::Sat(_)) || job.rel.is_none() {
        return (outcome, benign, job.rel);
    }
    // A loop the first access leaves before the second: when the race cannot happen from
    // that loop's last iteration, say so (synthesis may then cut it with a barrier every
    // later iteration passes).
    if let Some((l, depth)) = job.not_last {
        let last = Query {
            also: vec![(1, Bound::Last(l))],
            ..job.q.clone()
        };
        if holds_or_assumed(engine, &last) {
            return (outcome, benign.clone(), Some(IterRelation::NotLastIteration(depth)));
        }
    }
    // A loop the second access enters after the first: when the race cannot happen in that
    // loop's first iteration, a barrier every earlier iteration passes also cuts it. Only an
    // unsatisfiable query (the second thread pinned to iteration 0) says so.
    for &(l, depth) in &job.not_first {
        if engine.expired {
            break;
        }
        let first = Query {
            also: vec![(2, Bound::Iter(l, 0))],
            ..job.q.clone()
        };
        if holds_or_assumed(engine, &first) {
            return (outcome, benign.clone(), Some(IterRelation::NotFirstIteration(depth)));
        }
    }
    (outcome, benign, job.rel)
}

/// Whether the race query `q` (a race pinned to a loop's last or first iteration) is
/// unsatisfiable; with [`SdvOptions::assume_loop_relations`], whether no model of it is found
/// by evaluation (a found one refutes the relation exactly; otherwise it is assumed, for the
/// verifying check to confirm, and the solver's proof is saved).
pub(super) fn holds_or_assumed(engine: &mut Engine, q: &Query) -> bool {
    if engine.assume_loop_relations {
        return !engine.races_by_evaluation(q);
    }
    matches!(engine.run(q), Outcome::Unsat)
}

/// Runs a conflict query; for a race between two stores, also asks whether the stores can
/// write different bytes or values, and for a store racing with a load after the loading
/// thread's own store there (`own_read`), whether that own store can fail to cover the load
/// with the racing store's value. Returns the outcome (with the witness of a harmful execution
/// when there is one) and whether the race is benign: every racing execution stores the same
/// value at the same address, or loads the value its own thread stored, which is the racing
/// store's value.
pub(super) fn run_classified<'k>(
    engine: &mut Engine,
    q: &Query<'k>,
    own_read: Option<(u8, (Label, usize, &'k Access))>,
) -> (Outcome, bool) {
    let outcome = engine.run(q);
    let stores = q.a.2.kind == AccessKind::Write && q.b.2.kind == AccessKind::Write;
    if !(stores || own_read.is_some()) || !matches!(outcome, Outcome::Sat(_)) {
        return (outcome, false);
    }
    // Stores of the same value, or a load whose own thread stored the racing store's value
    // there first: is there a racing execution where that does not hold?
    let differ = Query {
        differ: stores,
        reads_own: own_read,
        ..q.clone()
    };
    match engine.run(&differ) {
        Outcome::Unsat => (outcome, true),
        Outcome::Sat(w) => (Outcome::Sat(w), false),
        Outcome::Unknown => (outcome, false),
    }
}
