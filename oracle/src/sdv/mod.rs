//! Oracle 1: the SDV checker for block-wide barriers.
//!
//! Synchronous, delayed-visibility semantics: the threads of a block run in lock step with
//! predicated `if`s and loops, and a write becomes visible to other threads only at a barrier.
//! The check reports every racing pair of access statements per array (with the loop iteration
//! relations under which they race and a witness) and every block-wide barrier reached under a
//! non-uniform predicate. Kernels with named barriers belong to the named-barrier checker.
//!
//! Pipeline: [`uniformity`] → barrier intervals over a lock-step CFG (`intervals`) → one Z3
//! conflict query per (access pair, relation) on two symbolic threads (`symex`, `query`).
//! The CFG unrolls loops with small constant trip counts (their uniform branches fold per
//! iteration), and each barrier-free path hands the query the iterations it pins its ends to
//! (an exact unrolled iteration, the first iteration of a loop it enters, the last iteration of
//! a loop it leaves by the test): the query asks for a race under one of the paths' bounds.
//!
//! Assumptions (each excludes only executions that real launches do not have):
//! - CUDA's launch limits (blockDim ≤ 1024×1024×64 with ≤ 1024 threads, gridDim.y/z ≤ 65535),
//!   fewer than 2^31 threads per grid dimension, and a block or grid dimension the kernel never
//!   mentions (`threadIdx.y`, `blockIdx.z`, ...) has size 1 when the launch leaves it unknown;
//! - signed integer arithmetic does not overflow (undefined behaviour in C); unsigned arithmetic
//!   wraps around and that is modelled exactly;
//! - a loop's additive induction variable does not wrap around before the iteration in question.

mod counters;
mod decided;
mod divisible;
mod fold;
mod grid_phases;
mod guess;
mod induction;
mod intervals;
mod levels;
mod mirror;
mod pow2;
mod query;
mod reuse;
mod symex;
mod syntax;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
mod threads;
mod uniform;

pub use levels::{Level, Uniformity};
pub use uniform::{uniformity, uniformity_if_reads_settle, uniformity_if_reads_settle_given};

use crate::ir::*;
use crate::report::*;
use crate::smt::LANES;
use crate::tree::{for_each_stmt, LabelTree, Position, ScopeKind};
use intervals::{common_depth, Intervals};
pub use query::QueryStat;
use query::{Bound, Engine, Outcome, Pairing, Query};
use rayon::prelude::*;
pub use reuse::Proofs;
use std::collections::{HashMap, HashSet};

/// Options of the SDV checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdvOptions {
    /// Solver time limit per query, in milliseconds (an unanswered query counts as a race).
    pub timeout_ms: u32,
    /// Also look for races between threads of different blocks on global memory.
    pub check_inter_block: bool,
    /// Wall-clock end of the whole check: once it passes, no more queries are asked and the
    /// report says it is inconclusive (never clean).
    pub deadline: Option<std::time::Instant>,
    /// Report benign races (stores of the same value to the same address) as races; otherwise
    /// they go to [`Report::benign`].
    pub strict: bool,
    /// Prefer witnesses with small non-negative parameter values and block indices (a few more
    /// solver calls per race; synthesis turns it off for the placements it tries).
    pub small_witnesses: bool,
    /// Check as if every read that can give all threads the same value did (see
    /// [`uniformity_if_reads_settle`]): the races a placement must remove besides making those
    /// reads settle. Not a verdict (synthesis uses it to plan, and verifies without it).
    pub assume_settled_reads: bool,
    /// Once two accesses are known to race harmfully, ask no other pair written at the same
    /// two source places (statement spans: a macro expanded into many statements, one call of
    /// an inlined function; two calls are two places) with the same
    /// arrays, scope and iteration relation on the same lane: the report then lists one racing
    /// access pair per pair of places (with the relation its own query refined), which is
    /// what synthesis plans with (the barrier positions around such statements are the same);
    /// every placement is verified with a full check. Never used for a verdict.
    pub one_race_per_place_pair: bool,
    /// Report a race from a loop to a statement after it as needing an iteration of that loop
    /// other than its last ([`IterRelation::NotLastIteration`]), or one into a loop from a
    /// statement before it as needing an iteration other than its first
    /// ([`IterRelation::NotFirstIteration`]), unless a short search by evaluation finds the race
    /// in that last (first) iteration; the solver is not asked. It is the relation that offers
    /// a placement the most barrier positions. Never used for a verdict: synthesis verifies
    /// every placement with a full check, which classifies every race it still finds.
    pub assume_loop_relations: bool,
    /// Nodes a search for a model by evaluation may evaluate before a conflict query goes to
    /// the solver (about 7 ns each). A miss costs the search; a model found saves a solver
    /// call of 2–30 ms: worth more where most queries are satisfiable (synthesis's planning
    /// call, on a kernel it is asked to fix) than where most are not (a race-free kernel).
    pub search_nodes: usize,
}

/// [`SdvOptions::search_nodes`] by default.
pub const SEARCH_NODES: usize = guess::NODE_BUDGET;

impl Default for SdvOptions {
    fn default() -> Self {
        SdvOptions {
            timeout_ms: 2000,
            check_inter_block: true,
            deadline: None,
            strict: false,
            small_witnesses: true,
            assume_settled_reads: false,
            one_race_per_place_pair: false,
            assume_loop_relations: false,
            search_nodes: SEARCH_NODES,
        }
    }
}

/// One memory access of the kernel.
#[derive(Clone, Copy)]
struct Site<'k> {
    label: Label,
    op: usize,
    access: &'k Access,
    /// The statement's span: where a macro's expansion or an inlined call is used.
    place: Span,
}

/// Which branches and loop bodies run whenever their statement runs.
#[derive(Clone, Debug, Default)]
pub struct Feasibility {
    /// Loops whose body certainly runs at least once whenever the loop statement runs: a
    /// do-while, a first test that folds to true with the constants known there (launch
    /// configuration, `--param` values, constant assignments), or one the solver proves true.
    pub entered_loops: HashSet<Label>,
    /// `if`s whose condition has the same value in every thread that evaluates it (proved by
    /// the solver): the branch it names runs whenever the `if` does.
    pub branches: HashMap<Label, bool>,
}

/// The [`Feasibility`] of every `if` and loop of `k`.
pub fn feasibility(k: &Kernel) -> Feasibility {
    feasibility_with(k, &uniformity(k), None)
}

/// [`feasibility`] with `k`'s uniformity (as [`uniformity`] finds it) given; with `blocks`,
/// only of the `if`s and loops with one of those blocks as a branch or body (the others are
/// left undecided: each costs a solver call).
pub fn feasibility_with(k: &Kernel, unif: &Uniformity, blocks: Option<&HashSet<Label>>) -> Feasibility {
    crate::smt::fresh_context(|| {
        let scope = blocks.map_or(decided::Scope::All, decided::Scope::Blocks);
        let d = decided::decide(k, unif, scope, SdvOptions::default().timeout_ms);
        Feasibility {
            entered_loops: intervals::Cfg::build(k, unif, &d).entered,
            branches: d.branches,
        }
    })
}

/// Checks `k` for intra-block races, inter-block races on global memory and barrier divergence.
pub fn check(k: &Kernel, opts: &SdvOptions) -> Report {
    crate::smt::fresh_context(|| check_in_context(k, opts, &mut Extras::default()))
}

/// [`check`], also keeping the conflict queries it proved unsatisfiable, for checks of `k` with
/// block-wide barriers added ([`check_with_barriers`]), and the uniformity it used
/// ([`Proofs::uniformity`]).
pub fn check_proving<'k>(k: &'k Kernel, opts: &SdvOptions) -> (Report, Proofs<'k>) {
    crate::smt::fresh_context(|| {
        let mut x = Extras {
            keep: true,
            ..Extras::default()
        };
        let r = check_in_context(k, opts, &mut x);
        let proofs = x
            .kept
            .unwrap_or_else(|| Proofs::new(k, reuse::WalkInputs::of(k, &uniformity(k))));
        (r, proofs)
    })
}

/// [`check`] of `proofs`' kernel with a block-wide barrier inserted at each of `positions`
/// (`Err`: a position not in the kernel). A conflict query that implies one the proofs hold
/// unsatisfiable is not asked (its answer cannot change: see `reuse.rs`); everything else,
/// divergence included, is checked as [`check`] does, so the report is the same.
pub fn check_with_barriers(proofs: &Proofs, positions: &[Position], opts: &SdvOptions) -> Result<Report, Position> {
    let inserts: Vec<(Position, Barrier)> = positions.iter().map(|p| (*p, Barrier::Block)).collect();
    let (k, _) = crate::tree::insert_barriers(proofs.kernel, &inserts)?;
    let mut x = Extras {
        reuse: Some(proofs),
        ..Extras::default()
    };
    Ok(crate::smt::fresh_context(|| check_in_context(&k, opts, &mut x)))
}

/// Where a check spends its time: per phase, and per solver call.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// (phase, milliseconds): uniformity, decided branches, barrier intervals, conflict queries.
    pub phases: Vec<(&'static str, f64)>,
    /// Every solver call of the conflict queries.
    pub queries: Vec<QueryStat>,
}

/// [`check`], also measuring where the time goes (for benchmarks; term counts cost time).
pub fn check_profiled(k: &Kernel, opts: &SdvOptions) -> (Report, Profile) {
    crate::smt::fresh_context(|| {
        let mut x = Extras {
            profile: Some(Profile::default()),
            ..Extras::default()
        };
        let r = check_in_context(k, opts, &mut x);
        (r, x.profile.unwrap_or_default())
    })
}

/// What a check does besides its report: measure itself, skip the queries proofs settle, keep
/// the proofs of its own unsatisfiable queries.
#[derive(Default)]
struct Extras<'p> {
    profile: Option<Profile>,
    reuse: Option<&'p Proofs<'p>>,
    keep: bool,
    kept: Option<Proofs<'p>>,
}

impl Extras<'_> {
    /// Ends a phase that started at `clock` (when profiling), and starts the next.
    fn phase(&mut self, name: &'static str, clock: &mut std::time::Instant) {
        if let Some(p) = &mut self.profile {
            p.phases.push((name, clock.elapsed().as_secs_f64() * 1000.0));
        }
        *clock = std::time::Instant::now();
    }
}

/// Why the SDV checker does not check `k` (named barriers or async pipelines), if it does not.
fn not_for_sdv(k: &Kernel) -> Option<Inconclusive> {
    if let Some(span) = first_named_barrier(k) {
        return Some(Inconclusive {
            span,
            message: "kernel uses named barriers; use the named-barrier checker".into(),
        });
    }
    crate::tree::first_async_op(k).map(|span| Inconclusive {
        span,
        message: "kernel uses mbarriers or asynchronous copies; use the named-barrier checker".into(),
    })
}

fn check_in_context<'k>(k: &'k Kernel, opts: &SdvOptions, x: &mut Extras<'k>) -> Report {
    let mut clock = std::time::Instant::now();
    let mut report = Report::default();
    if let Some(i) = not_for_sdv(k) {
        report.inconclusive.push(i);
        return report;
    }
    let unif = match (opts.assume_settled_reads, x.reuse) {
        (true, _) => uniformity_if_reads_settle(k),
        // The kernel checked with barriers added: the conditions' levels stand when its walks
        // read the same counters (the rest `uniformity_given` compares).
        (false, Some(p)) if p.counters() == &counters::counter_arrays(k) => {
            uniform::uniformity_given(k, p.uniformity())
        }
        (false, _) => uniformity(k),
    };
    x.phase("uniformity", &mut clock);
    let tree = LabelTree::new(k);
    report.divergences = divergences(k, &unif, &tree);

    let sites = access_sites(k, &tree);
    let mut labels: Vec<Label> = sites.iter().map(|s| s.label).collect();
    labels.dedup();
    let decided = decided::decide(k, &unif, decided::Scope::WithBarriers, opts.timeout_ms);
    x.phase("decided", &mut clock);
    let iv = Intervals::compute(k, &unif, &decided, &tree, &labels);
    x.phase("intervals", &mut clock);

    let mut jobs = jobs(k, opts, &sites, &tree, &iv);
    let inputs = (x.reuse.is_some() || x.keep).then(|| reuse::WalkInputs::of(k, &unif));
    if let (Some(p), Some(inputs)) = (x.reuse, &inputs) {
        if p.applies(inputs) {
            jobs.retain(|j| !p.settles(&reuse::asked(&j.q, j.scope, j.rel)));
        }
    }
    mark_own_reads(k, &sites, &mut jobs);
    let mirrors = mirror::mirrors(&shapes(&jobs));
    let (answers, queries, expired) = answer(k, &unif, opts, (&jobs, &mirrors), &sites, x);
    if let Some(inputs) = inputs.filter(|_| x.keep) {
        x.kept = Some(proved(k, inputs, &jobs, &answers));
    }
    let mut races = RaceSet::default();
    for (n, (outcome, benign, rel)) in answers {
        let job = &jobs[n];
        races.record(
            &sites[job.sites.0],
            &sites[job.sites.1],
            job.scope,
            rel,
            outcome,
            benign,
        );
    }
    x.phase("queries", &mut clock);
    let (harmful, benign) = races.finish(opts.strict);
    report.races = harmful;
    report.benign = benign;
    report.queries = queries;
    if expired {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: format!(
                "the kernel's time budget ran out after {queries} solver queries; not every access pair was checked"
            ),
        });
    }
    report
}

/// What [`mirror::mirrors`] reads of the jobs.
fn shapes<'j, 'k>(jobs: &'j [Job<'k>]) -> Vec<mirror::Shape<'j, 'k>> {
    jobs.iter()
        .map(|j| mirror::Shape {
            sites: j.sites,
            rel: j.rel,
            plain_intra: j.scope == RaceScope::IntraBlock && j.own_read.is_none(),
            q: &j.q,
        })
        .collect()
}

/// Asks the jobs on the lanes, but for those with a mirror (see [`mirror::mirrors`]), which take
/// its answer mirrored: the answers in job order, the number of solver calls, and whether the
/// deadline passed. Profiles the solver calls into `x`.
fn answer(
    k: &Kernel,
    unif: &Uniformity,
    opts: &SdvOptions,
    (jobs, mirrors): (&[Job], &[Option<usize>]),
    sites: &[Site],
    x: &mut Extras,
) -> (Vec<(usize, Answer)>, u64, bool) {
    let groups = groups(jobs, sites, |n| mirrors[n].is_none());
    let lanes = run_lanes(k, unif, opts, jobs, &groups, x.profile.is_some());
    let mut answers: Vec<(usize, Answer)> = Vec::new();
    let mut queries = 0;
    let mut expired = false;
    for lane in lanes {
        answers.extend(lane.answers);
        queries += lane.queries;
        expired |= lane.expired;
        if let Some(p) = &mut x.profile {
            p.queries.extend(lane.stats);
        }
    }
    let by_job: HashMap<usize, &Answer> = answers.iter().map(|(n, a)| (*n, a)).collect();
    let mirrored: Vec<(usize, Answer)> = (0..jobs.len())
        .filter_map(|n| {
            let (outcome, benign, _) = by_job.get(&mirrors[n]?)?;
            Some((n, (mirror::mirrored(outcome), *benign, jobs[n].rel)))
        })
        .collect();
    answers.extend(mirrored);
    answers.sort_by_key(|(n, _)| *n);
    (answers, queries, expired)
}

/// The proofs of the jobs whose query was unsatisfiable.
fn proved<'k>(k: &'k Kernel, inputs: reuse::WalkInputs, jobs: &[Job], answers: &[(usize, Answer)]) -> Proofs<'k> {
    let mut p = Proofs::new(k, inputs);
    for (n, (outcome, _, _)) in answers {
        if matches!(outcome, Outcome::Unsat) {
            let j = &jobs[*n];
            p.add(reuse::asked(&j.q, j.scope, j.rel));
        }
    }
    p
}

/// Every conflict query the access pairs need, in a fixed order: per pair of sites that may
/// conflict (in text order), one per iteration relation of their barrier intervals, then one
/// between blocks when the array is global, the grid may have several blocks and no top-level
/// grid barrier separates the two.
fn jobs<'k>(k: &Kernel, opts: &SdvOptions, sites: &[Site<'k>], tree: &LabelTree, iv: &Intervals) -> Vec<Job<'k>> {
    let grid_may_exceed_one = k
        .launch
        .grid_dim
        .is_none_or(|g| g.iter().map(|&x| x as u64).product::<u64>() > 1);
    let phases = grid_phases::GridPhases::of(k);
    let mut jobs: Vec<Job> = Vec::new();
    for (i, a) in sites.iter().enumerate() {
        for (j, b) in sites.iter().enumerate().skip(i) {
            if !may_conflict(k, a.access, b.access) {
                continue;
            }
            intra_block_jobs(k, tree, iv, (i, a), (j, b), &mut jobs);
            let global = k.array(a.access.array).space == Space::Global;
            if opts.check_inter_block && global && grid_may_exceed_one && !phases.separated(a.label, b.label) {
                let q = Query {
                    a: (a.label, a.op, a.access),
                    b: (b.label, b.op, b.access),
                    shared: Vec::new(),
                    other_iteration: None,
                    consecutive: false,
                    pairing: Pairing::InterBlock,
                    lockstep_group: None,
                    bounds: Vec::new(),
                    also: Vec::new(),
                    differ: false,
                    reads_own: None,
                };
                jobs.push(Job {
                    sites: (i, j),
                    places: [a.place, b.place],
                    scope: RaceScope::InterBlock,
                    rel: None,
                    not_last: None,
                    not_first: Vec::new(),
                    q,
                    own_read: None,
                });
            }
        }
    }
    jobs
}

/// Gives every intra-block job of a store and a load of the same size the load's own earlier
/// store to the same bytes, when it has one (see [`syntax::own_earlier_writes`]): such a race
/// may be benign.
fn mark_own_reads<'k>(k: &Kernel, sites: &[Site<'k>], jobs: &mut [Job<'k>]) {
    let own = syntax::own_earlier_writes(k);
    if own.is_empty() {
        return;
    }
    let by_pos: HashMap<(Label, usize), &'k Access> = sites.iter().map(|s| ((s.label, s.op), s.access)).collect();
    for job in jobs.iter_mut().filter(|j| j.scope == RaceScope::IntraBlock) {
        let (a, b) = (job.q.a, job.q.b);
        let reader = match (a.2.kind, b.2.kind) {
            (AccessKind::Write, AccessKind::Read) => 2,
            (AccessKind::Read, AccessKind::Write) => 1,
            _ => continue,
        };
        let (read, store) = if reader == 1 { (a, b) } else { (b, a) };
        if read.2.size != store.2.size {
            continue;
        }
        if let Some(&(l, op)) = own.get(&(read.0, read.1)) {
            if let Some(&acc) = by_pos.get(&(l, op)) {
                job.own_read = Some((reader, (l, op, acc)));
            }
        }
    }
}

/// The intra-block jobs of sites `a` (index `i`) and `b` (index `j`, not earlier in text
/// order): one per iteration relation under which a barrier-free path connects them.
fn intra_block_jobs<'k>(
    k: &Kernel,
    tree: &LabelTree,
    iv: &Intervals,
    (i, a): (usize, &Site<'k>),
    (j, b): (usize, &Site<'k>),
    jobs: &mut Vec<Job<'k>>,
) {
    let Some((cross, same)) = iv.get(a.label, b.label) else {
        return;
    };
    let common: Vec<Label> = {
        let la = tree.get(a.label).loop_owners();
        let lb = tree.get(b.label).loop_owners();
        let n = common_depth(&la, &lb);
        la[..n].to_vec()
    };
    for &rel in cross {
        let shared = match rel {
            IterRelation::SameIteration | IterRelation::NotLastIteration(_) | IterRelation::NotFirstIteration(_) => {
                common.clone()
            }
            IterRelation::AcrossBackEdge(d) | IterRelation::AcrossBackEdgeReversed(d) => {
                common[..(d as usize - 1).min(common.len())].to_vec()
            }
            IterRelation::Unknown => Vec::new(),
        };
        let same_instance = i == j && rel == IterRelation::SameIteration;
        let q = Query {
            a: (a.label, a.op, a.access),
            b: (b.label, b.op, b.access),
            other_iteration: match rel {
                IterRelation::AcrossBackEdge(d) => common.get(d as usize - 1).map(|l| (*l, true)),
                IterRelation::AcrossBackEdgeReversed(d) => common.get(d as usize - 1).map(|l| (*l, false)),
                _ => None,
            },
            consecutive: iv.consecutive(a.label, b.label, rel),
            shared,
            pairing: if same.contains(&rel) {
                Pairing::AnyThreads
            } else {
                Pairing::DifferentWarps
            },
            lockstep_group: k.launch.warp_sync.filter(|_| !same_instance),
            bounds: iv.bounds(a.label, b.label, rel),
            also: Vec::new(),
            differ: false,
            reads_own: None,
        };
        jobs.push(Job {
            sites: (i, j),
            places: [a.place, b.place],
            scope: RaceScope::IntraBlock,
            rel: Some(rel),
            not_last: not_last_loop(tree, a.label, b.label, rel),
            not_first: not_first_loops(tree, a.label, b.label, rel),
            q,
            own_read: None,
        });
    }
}

/// Runs the groups of jobs round-robin on [`LANES`] lanes, each with its own Z3 context, on
/// rayon's pool: the answers do not depend on how many cores the machine has.
fn run_lanes(
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
                    expired: engine.expired,
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
fn run_group(
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
            answers.extend(rest.iter().map(|&n| (n, (Outcome::Unsat, false, jobs[n].rel))));
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
type PlacePair = ([Span; 2], [ArrayId; 2], bool, RaceScope, Option<IterRelation>);

fn place_pair(j: &Job) -> PlacePair {
    let (a, b) = (&j.q.a, &j.q.b);
    (j.places, [a.2.array, b.2.array], a.0 == b.0, j.scope, j.rel)
}

/// Records a harmful race of the job's place pair.
fn note_racy(j: &Job, answer: &Answer, racy: Option<&mut HashSet<PlacePair>>) {
    if let (Some(racy), (Outcome::Sat(_), false, _)) = (racy, answer) {
        racy.insert(place_pair(j));
    }
}

/// Most jobs in one group (see [`groups`]).
const GROUP_SIZE: usize = 9;

/// A group's probe (see [`Engine::none_of`]) may cost this many times its first query (and at
/// most 1/32 of the per-query timeout). At 3 the probes of the Singe-shaped bench kernel mostly
/// ran out (2,367 solver calls); at 32 nearly all succeed (about 900 calls, the check about
/// half as long).
const PROBE_FACTOR: u64 = 32;

/// Z3 resource units under which a group's first query counts as cheap (5–15 ms of solver
/// work on the realistic kernels): then the rest of the group is asked together (see
/// [`Engine::none_of`]).
const CHEAP_QUERY: u64 = 56_000;

/// The jobs to ask (those `asked` keeps) in groups that are first asked together (see
/// [`Engine::none_of`]): jobs of one scope, pairing and pair of arrays, on walks of the same
/// shared loops, in job order, at most [`GROUP_SIZE`] each. Groups are in the order of their
/// first jobs.
fn groups(jobs: &[Job], sites: &[Site], asked: impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
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

/// One conflict query of a check and where its answer goes.
struct Job<'k> {
    /// Indices of the two access sites.
    sites: (usize, usize),
    /// The spans of their statements.
    places: [Span; 2],
    scope: RaceScope,
    /// The iteration relation (intra-block queries).
    rel: Option<IterRelation>,
    /// See [`not_last_loop`].
    not_last: Option<(Label, u32)>,
    /// See [`not_first_loops`].
    not_first: Vec<(Label, u32)>,
    q: Query<'k>,
    /// The load's own earlier store, for a race that may be benign (see [`Query::reads_own`];
    /// kept out of `q`, which is asked as it is).
    own_read: Option<(u8, (Label, usize, &'k Access))>,
}

/// A job's outcome, whether the race is benign, and the relation to record.
type Answer = (Outcome, bool, Option<IterRelation>);

/// What one lane answered: (job index, answer) in job order, and its solver statistics.
struct Lane {
    answers: Vec<(usize, Answer)>,
    queries: u64,
    expired: bool,
    stats: Vec<QueryStat>,
}

/// Runs a job: its query, classified (see [`run_classified`]); for a race whose first access is
/// in a loop the second is after, whether it needs that loop's last iteration; failing that,
/// for one whose second access is in loops the first is before, whether it needs an iteration
/// of one of them other than the first. Returns the outcome, whether the race is benign, and
/// the relation to record.
fn run_job(engine: &mut Engine, job: &Job) -> Answer {
    let (outcome, benign) = run_classified(engine, &job.q, job.own_read);
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
            return (outcome, benign, Some(IterRelation::NotLastIteration(depth)));
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
            return (outcome, benign, Some(IterRelation::NotFirstIteration(depth)));
        }
    }
    (outcome, benign, job.rel)
}

/// Whether the race query `q` (a race pinned to a loop's last or first iteration) is
/// unsatisfiable; with [`SdvOptions::assume_loop_relations`], whether no model of it is found
/// by evaluation (a found one refutes the relation exactly; otherwise it is assumed, for the
/// verifying check to confirm, and the solver's proof is saved).
fn holds_or_assumed(engine: &mut Engine, q: &Query) -> bool {
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
fn run_classified<'k>(
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

/// For a same-iteration pair whose first access (in text order) is in loops the second is
/// after: the innermost of them and its depth among the first access's loops.
fn not_last_loop(tree: &LabelTree, a: Label, b: Label, rel: IterRelation) -> Option<(Label, u32)> {
    if rel != IterRelation::SameIteration || a == b {
        return None;
    }
    let la = tree.get(a).loop_owners();
    let common = common_depth(&la, &tree.get(b).loop_owners());
    (la.len() > common).then(|| (*la.last().expect("deeper than common"), la.len() as u32))
}

/// For a same-iteration pair whose second access (in text order) is in loops the first is
/// before: those loops that can repeat (a lowered `switch` runs once), outermost first (a
/// barrier in an outer body costs less), each with its depth among the second access's loops.
fn not_first_loops(tree: &LabelTree, a: Label, b: Label, rel: IterRelation) -> Vec<(Label, u32)> {
    if rel != IterRelation::SameIteration || a == b {
        return Vec::new();
    }
    let common = common_depth(&tree.get(a).loop_owners(), &tree.get(b).loop_owners());
    let loops = tree.get(b).scopes.iter().filter(|s| s.kind == ScopeKind::LoopBody);
    loops
        .enumerate()
        .skip(common)
        .filter(|(_, s)| !s.once)
        .filter_map(|(i, s)| Some((s.owner?, i as u32 + 1)))
        .collect()
}

fn first_named_barrier(k: &Kernel) -> Option<Span> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            if b.is_named() && found.is_none() {
                found = Some(s.span);
            }
        }
    });
    found
}

/// Block-wide barriers whose predicate is not block-uniform.
fn divergences(k: &Kernel, unif: &Uniformity, tree: &LabelTree) -> Vec<Divergence> {
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            let level = unif.level(s.label);
            if b.is_block_wide() && level != Level::Block {
                let cond = unif.cause(s.label).unwrap_or(s.label);
                let cond_span = tree.info.get(&cond).map_or(s.span, |i| i.span);
                out.push(Divergence {
                    barrier: s.label,
                    span: s.span,
                    cond_stmt: cond,
                    cond_span,
                    within_warp: level == Level::Thread,
                    across_blocks: false,
                });
            }
        }
    });
    // Grid barriers every thread of a block reaches together, but not every block.
    for (barrier, cond) in uniform::grid_divergent(k) {
        if out.iter().any(|d| d.barrier == barrier) {
            continue;
        }
        let span = tree.info.get(&barrier).map_or(k.span, |i| i.span);
        out.push(Divergence {
            barrier,
            span,
            cond_stmt: cond,
            cond_span: tree.info.get(&cond).map_or(span, |i| i.span),
            within_warp: false,
            across_blocks: true,
        });
    }
    out
}

/// Every access to a shared or global array, in text order.
fn access_sites<'k>(k: &'k Kernel, tree: &LabelTree) -> Vec<Site<'k>> {
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s: &'k Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for (op, o) in ops.iter().enumerate() {
                let access = match o {
                    Op::Read(_, a) | Op::Write(a, _) | Op::Atomic(_, a, _) => a,
                    // Async-pipeline ops stop the SDV checker before this stage (`sdv::check`).
                    Op::Assign(..) | Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {
                        continue
                    }
                };
                let local = k
                    .arrays
                    .get(access.array.0 as usize)
                    .is_none_or(|a| a.space == Space::Local);
                if !local {
                    out.push(Site {
                        label: s.label,
                        op,
                        access,
                        place: s.span,
                    });
                }
            }
        }
    });
    out.sort_by_key(|s| (tree.get(s.label).post, s.op));
    out
}

/// Cheap filter: same array, not both reads, not both atomics.
fn may_conflict(k: &Kernel, a: &Access, b: &Access) -> bool {
    a.array == b.array && k.array(a.array).space != Space::Local && a.kind.conflicts_with(b.kind)
}

/// Races collected per (first label, second label, array, scope).
#[derive(Default)]
struct RaceSet {
    races: Vec<Race>,
    index: HashMap<(Label, Label, ArrayId, bool), usize>,
}

impl RaceSet {
    fn record(
        &mut self,
        a: &Site,
        b: &Site,
        scope: RaceScope,
        rel: Option<IterRelation>,
        outcome: Outcome,
        benign: bool,
    ) {
        let (witness, assumed) = match outcome {
            Outcome::Unsat => return,
            Outcome::Sat(w) => (w, false),
            Outcome::Unknown => (Witness::default(), true),
        };
        let key = (a.label, b.label, a.access.array, scope == RaceScope::InterBlock);
        let idx = *self.index.entry(key).or_insert_with(|| {
            self.races.push(Race {
                array: a.access.array,
                first: RaceAccess {
                    label: a.label,
                    span: a.access.span,
                    kind: a.access.kind,
                },
                second: RaceAccess {
                    label: b.label,
                    span: b.access.span,
                    kind: b.access.kind,
                },
                kind: RaceKind::of(a.access.kind, b.access.kind),
                relations: Vec::new(),
                scope,
                witness: witness.clone(),
                assumed,
                benign,
            });
            self.races.len() - 1
        });
        let r = &mut self.races[idx];
        if r.benign && !benign {
            // One harmful relation makes the pair harmful; its witness shows a real conflict.
            r.benign = false;
            r.witness = witness.clone();
        }
        if let Some(rel) = rel {
            if !r.relations.contains(&rel) {
                r.relations.push(rel);
            }
        }
        if r.assumed && !assumed {
            // A proven race replaces an assumed one's (empty) witness.
            r.assumed = false;
            r.witness = witness;
            r.first = RaceAccess {
                label: a.label,
                span: a.access.span,
                kind: a.access.kind,
            };
            r.second = RaceAccess {
                label: b.label,
                span: b.access.span,
                kind: b.access.kind,
            };
            r.kind = RaceKind::of(a.access.kind, b.access.kind);
        }
    }

    /// The harmful races and the benign ones (with `strict`, every race is in the first list).
    fn finish(mut self, strict: bool) -> (Vec<Race>, Vec<Race>) {
        for r in &mut self.races {
            r.relations.sort();
        }
        self.races.into_iter().partition(|r| strict || !r.benign)
    }
}
