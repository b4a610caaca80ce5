//! The conflict query engine: builds a query's formula from the two threads' walks and asks
//! it cheapest first (divisibility, evaluation, slices, budgets, abstraction, a second solver),
//! with the witness of a race.

use super::super::guess::{self, Guess};
use super::super::injective;
use super::super::levels::Uniformity;
use super::super::symex::{self, Detail, SiteTerms, Walk};
use super::super::threads::{
    dim_bounds, geometry, geometry_constraints, group_of, warp_of, DimBounds, Geometry, ThreadVars,
};
use super::bounds::*;
use super::formulas::*;
use super::model::*;
use super::slice::*;
use crate::ir::*;
use crate::report::{ThreadId, Witness};
use crate::smt::{conjuncts, numeral};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use z3::ast::{Bool, Dynamic, BV};
use z3::{SatResult, Solver};

/// The two coordinate triples differ somewhere.
fn distinct(a: &[BV; 3], b: &[BV; 3]) -> Bool {
    Bool::or(&[a[0].eq(&b[0]).not(), a[1].eq(&b[1]).not(), a[2].eq(&b[2]).not()])
}

/// What two sites' overlap is decided on: their element indices when both offsets are one base
/// plus an index of the access's size (equal indices ⇔ overlap), else their byte offsets.
fn compared_offsets<'s>(s1: &'s SiteTerms, s2: &'s SiteTerms) -> (&'s BV, &'s BV) {
    match (&s1.index, &s2.index) {
        (Some((i1, _)), Some((i2, _))) if s1.base == s2.base && i1.get_size() == i2.get_size() => (i1, i2),
        _ => (&s1.offset, &s2.offset),
    }
}

/// How the two threads of a query relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pairing {
    /// Same block, any two distinct threads.
    AnyThreads,
    /// Same block, threads of different warps.
    DifferentWarps,
    /// Different blocks.
    InterBlock,
}

/// One conflict query.
#[derive(Clone)]
pub(crate) struct Query<'a> {
    /// First access (thread 1).
    pub a: (Label, usize, &'a Access),
    /// Second access (thread 2).
    pub b: (Label, usize, &'a Access),
    /// Loops in whose current iteration both threads are.
    pub shared: Vec<Label>,
    /// A loop in which the threads are in different iterations, and whether the first access's
    /// thread is in the earlier one (`true`) or the later one (`false`).
    pub other_iteration: Option<(Label, bool)>,
    /// The later thread is exactly one iteration of that loop later (no barrier-free path
    /// spans a whole iteration).
    pub consecutive: bool,
    /// Thread relation.
    pub pairing: Pairing,
    /// `--warp-sync=N` applies: threads of one N-group cannot race here.
    pub lockstep_group: Option<u32>,
    /// Where the threads are in their loops: one of these sets of bounds holds (none: no
    /// constraint).
    pub bounds: Vec<PathBounds>,
    /// Bounds that hold besides (all of them).
    pub also: PathBounds,
    /// Only executions where two stores write different bytes or different values (a race
    /// without such an execution is benign: every thread writes the same value).
    pub differ: bool,
    /// For a store racing with a load: the reading thread (1 or 2) and its own earlier store
    /// to the bytes it reads (see [`super::syntax::own_earlier_writes`]). Only executions where
    /// that store does not cover the load with the value the racing store writes (a race
    /// without such an execution is benign: the load sees that value whichever store it sees).
    pub reads_own: Option<(u8, (Label, usize, &'a Access))>,
    /// Only executions where both threads touch the same coordinates of every parameter
    /// stride (see [`super::layout`]): a race without one needs overlapping layouts.
    pub same_coordinates: bool,
}

/// The answer to a query.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// No race.
    Unsat,
    /// A race with a witness.
    Sat(Witness),
    /// The solver gave up: a race is assumed.
    Unknown,
}

/// Runs conflict queries on one solver, caching walks and identical queries.
pub(crate) struct Engine<'k> {
    k: &'k Kernel,
    unif: &'k Uniformity,
    geom: Geometry,
    intra: [ThreadVars; 2],
    inter: [ThreadVars; 2],
    solver: Solver,
    /// The geometry constraints asserted on the solvers (a guessed model must satisfy them).
    geometry_facts: Vec<Bool>,
    /// Values of constants in the models found so far (where a search for the next starts).
    hints: guess::Hints,
    /// Searches for a model tried so far, and those that found one.
    guesses: (u32, u32),
    /// [`crate::smt::fallback_solver`], with the geometry constraints, once a query needs it.
    fallback: Option<Solver>,
    walks: HashMap<(u8, bool, Vec<Label>, Detail), Rc<Walk>>,
    memo: HashMap<Bool, Outcome>,
    /// The constants of each term sliced so far (queries share most of their terms).
    constants: HashMap<Dynamic, Rc<HashSet<String>>>,
    /// Names of the thread and block indices of `intra` and `inter` (see [`slice`]).
    hubs: HashSet<String>,
    /// Number of solver calls.
    pub queries: u64,
    /// Queries settled without a solver call or search: by the GCD test, by the injectivity
    /// test.
    pub settled: Settled,
    /// Whether the injectivity test is tried (see [`super::super::SdvOptions::injective_test`]).
    pub injective_test: bool,
    /// The launch's dimension bounds (for the injectivity test).
    bounds: DimBounds,
    /// The queries counted in `settled`: their accesses and formula (a query asked again, or
    /// the same formula at other accesses, is counted once each).
    settled_seen: HashSet<(Site, Site, Bool)>,
    /// Z3 resource units spent by the checks so far (deterministic, unlike time).
    pub spent: u64,
    /// The context's resource count after the last check.
    resources_seen: u64,
    /// Per-query solver limit.
    timeout_ms: u32,
    /// Wall-clock end of the whole check, if bounded.
    deadline: Option<std::time::Instant>,
    /// Whether a query was skipped because the deadline had passed.
    pub expired: bool,
    /// Whether a query was left undecided after some attempt at it stopped at its wall-clock
    /// limit rather than its resource budget (on a less loaded machine it might be decided).
    pub wall_limited: bool,
    /// Attempts stopped by their wall-clock limit so far.
    clock_stops: u64,
    /// Look for witnesses with small parameter values (costs up to three more solver calls per
    /// race).
    pub small_witnesses: bool,
    /// See [`super::SdvOptions::assume_loop_relations`].
    pub assume_loop_relations: bool,
    /// See [`super::SdvOptions::search_nodes`].
    pub search_nodes: usize,
    /// Every solver call, when profiling.
    pub profile: Option<Vec<QueryStat>>,
    /// The kernel's parameters some condition depends on (computed on first use).
    params_in_conditions: Option<HashSet<String>>,
}

/// One solver call of a check (what `sdv::check_profiled` lists).
#[derive(Clone, Debug)]
pub struct QueryStat {
    /// The two access statements.
    pub pair: (Label, Label),
    /// `intra` or `inter` (blocks), with `/abstract` for the product abstraction.
    pub kind: String,
    /// `smt` or `qfbv`.
    pub solver: &'static str,
    /// Distinct terms in the formula.
    pub size: usize,
    /// Wall-clock time of the call.
    pub millis: f64,
    /// `sat`, `unsat` or `unknown`.
    pub result: &'static str,
}

/// An access: its statement and operation.
type Site = (Label, usize);

/// How many queries a test settled without the solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settled {
    /// By the GCD test ([`super::super::divisible`]).
    pub divisible: u64,
    /// By the injectivity test ([`injective`]).
    pub injective: u64,
}

/// Which test proved a query unsatisfiable without the solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Test {
    Divisible,
    Injective,
}

/// A query's formula and the walks it is built from.
struct Built {
    w1: Rc<Walk>,
    w2: Rc<Walk>,
    /// The conjuncts of `formula`, as assembled.
    parts: Vec<Bool>,
    formula: Bool,
    /// The test that proved the query unsatisfiable without the solver: the offsets never
    /// overlap by the GCD test, or the indices are one injective function of the threads'
    /// coordinates.
    settled: Option<Test>,
}

impl<'k> Engine<'k> {
    /// A solver with the geometry constraints asserted once.
    pub(crate) fn new(
        k: &'k Kernel,
        unif: &'k Uniformity,
        timeout_ms: u32,
        deadline: Option<std::time::Instant>,
    ) -> Engine<'k> {
        let geom = geometry(k);
        let intra = [ThreadVars::new(1), ThreadVars::new(2)];
        let inter = [
            ThreadVars::with_block(1, "bidA", false),
            ThreadVars::with_block(2, "bidB", false),
        ];
        let solver = crate::smt::query_solver(timeout_ms);
        let hubs: HashSet<String> = intra
            .iter()
            .chain(inter.iter())
            .flat_map(ThreadVars::index_names)
            .collect();
        let all: Vec<&ThreadVars> = intra.iter().chain(inter.iter()).collect();
        let geometry_facts = geometry_constraints(k, &geom, &all);
        for c in &geometry_facts {
            solver.assert(c);
        }
        Engine {
            geometry_facts,
            hints: guess::Hints::new(),
            guesses: (0, 0),
            k,
            unif,
            geom,
            intra,
            inter,
            solver,
            fallback: None,
            profile: None,
            params_in_conditions: None,
            walks: HashMap::new(),
            memo: HashMap::new(),
            constants: HashMap::new(),
            hubs,
            queries: 0,
            settled: Settled::default(),
            injective_test: true,
            bounds: dim_bounds(k),
            settled_seen: HashSet::new(),
            spent: 0,
            resources_seen: 0,
            timeout_ms,
            deadline,
            expired: false,
            wall_limited: false,
            clock_stops: 0,
            small_witnesses: false,
            assume_loop_relations: false,
            search_nodes: guess::NODE_BUDGET,
        }
    }

    /// Asserts `f` in a new scope of the main solver (or the fallback one) and checks it within
    /// `budget_ms` of solver work; the caller pops that scope (see [`Engine::holder`]).
    fn attempt(&mut self, f: &Bool, fallback: bool, budget_ms: u32, what: (Label, Label, &str)) -> SatResult {
        let wall_left = self.deadline.map(|d| {
            d.saturating_duration_since(std::time::Instant::now())
                .as_millis()
                .min(u64::MAX as u128) as u64
        });
        let solver = if fallback { self.fallback_solver() } else { &self.solver };
        crate::smt::set_limits(solver, budget_ms, wall_left);
        solver.push();
        solver.assert(f);
        dump_query(solver, what.2, fallback);
        let started = std::time::Instant::now();
        let res = solver.check();
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        let by_clock = res == SatResult::Unknown && crate::smt::stopped_by_clock(solver);
        // Z3's resource count is per context and only grows: the difference is this check's.
        let count = match solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
            _ => self.resources_seen,
        };
        self.spent += count.saturating_sub(self.resources_seen);
        self.resources_seen = count;
        self.clock_stops += u64::from(by_clock);
        self.queries += 1;
        if let Some(p) = &mut self.profile {
            p.push(QueryStat {
                pair: (what.0, what.1),
                kind: what.2.to_string(),
                solver: if fallback { "qfbv" } else { "smt" },
                size: term_count(f),
                millis,
                result: match res {
                    SatResult::Sat => "sat",
                    SatResult::Unsat => "unsat",
                    SatResult::Unknown => "unknown",
                },
            });
        }
        res
    }

    /// A model of the query with conjuncts `parts` found by evaluation (see [`guess`]).
    fn guess(&mut self, parts: &[Bool], pair: (Label, Label), budget: usize) -> Option<Guess> {
        // A search that misses costs about 0.2 ms, a solver call that finds a model 5-30 ms:
        // searches go on while they find one in about nine tries, and stop after four misses
        // on a lane that found none (a race-free kernel).
        let (tried, found) = self.guesses;
        if tried - found > 4 + 8 * found {
            return None;
        }
        let started = std::time::Instant::now();
        let mut all = self.geometry_facts.clone();
        all.extend(parts.iter().cloned());
        let found = guess::search_within(&all, &self.hints, budget);
        self.guesses.0 += 1;
        if let Some(g) = &found {
            self.guesses.1 += 1;
            guess::remember(g, &mut self.hints);
        }
        if let Some(p) = &mut self.profile {
            p.push(QueryStat {
                pair,
                kind: "guess".to_string(),
                solver: "eval",
                size: 0,
                millis: started.elapsed().as_secs_f64() * 1000.0,
                result: if found.is_some() { "sat" } else { "unknown" },
            });
        }
        found
    }

    /// [`Engine::guess`] whatever the lane's record of misses, within `budget` node
    /// evaluations.
    fn guess_anyway(&mut self, parts: &[Bool], pair: (Label, Label), budget: usize) -> Option<Guess> {
        let saved = self.guesses;
        self.guesses = (0, 0);
        let g = self.guess(parts, pair, budget);
        // A miss here is not held against the lane's ordinary searches.
        let hit = u32::from(g.is_some());
        self.guesses = (saved.0 + hit, saved.1 + hit);
        g
    }

    /// The fallback solver, created with the geometry constraints on first use.
    fn fallback_solver(&mut self) -> &Solver {
        if self.fallback.is_none() {
            let fb = crate::smt::fallback_solver(self.timeout_ms);
            let all: Vec<&ThreadVars> = self.intra.iter().chain(self.inter.iter()).collect();
            for c in geometry_constraints(self.k, &self.geom, &all) {
                fb.assert(&c);
            }
            self.fallback = Some(fb);
        }
        self.fallback.as_ref().expect("created above")
    }

    /// The solver [`Engine::attempt`] left the formula in.
    fn holder(&self, fallback: bool) -> &Solver {
        match (&self.fallback, fallback) {
            (Some(fb), true) => fb,
            _ => &self.solver,
        }
    }

    fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| std::time::Instant::now() >= d)
    }

    fn walk(&mut self, tag: u8, inter: bool, shared: &[Label], detail: Detail) -> Rc<Walk> {
        let key = (tag, inter, shared.to_vec(), detail);
        if let Some(w) = self.walks.get(&key) {
            return w.clone();
        }
        let th = if inter {
            &self.inter[tag as usize - 1]
        } else {
            &self.intra[tag as usize - 1]
        };
        let set: HashSet<Label> = shared.iter().copied().collect();
        let w = Rc::new(symex::walk(self.k, self.unif, &self.geom, th, &set, detail));
        self.walks.insert(key, w.clone());
        w
    }

    /// The formula of a query and the walks it was built from; `None` when the walks cannot
    /// express the query (it is then undecided).
    fn build(&mut self, q: &Query) -> Option<Built> {
        let inter = q.pairing == Pairing::InterBlock;
        // Only whether stores may write different values needs the values themselves.
        let detail = if q.differ || q.reads_own.is_some() {
            Detail::Stores
        } else {
            Detail::Accesses
        };
        let w1 = self.walk(1, inter, &q.shared, detail);
        let w2 = self.walk(2, inter, &q.shared, detail);
        let (Some(s1), Some(s2)) = (w1.sites.get(&(q.a.0, q.a.1)), w2.sites.get(&(q.b.0, q.b.1))) else {
            // Every access is visited by the walk; a missing one would be a bug: assume a race.
            return None;
        };
        let [t1, t2] = if inter { self.inter.clone() } else { self.intra.clone() };
        let (t1, t2) = (&t1, &t2);
        let (meet, disjoint) = overlap(s1, q.a.2.size, s2, q.b.2.size);
        let settled = if disjoint {
            Some(Test::Divisible)
        } else if self.injective_test
            && self.never_equal([s1, s2], [q.a.2.size, q.b.2.size], [&w1, &w2], [t1, t2], inter)
        {
            Some(Test::Injective)
        } else {
            None
        };
        let mut parts = vec![
            s1.at.ctrl.clone(),
            s1.at.facts.clone(),
            s2.at.ctrl.clone(),
            s2.at.facts.clone(),
            meet,
        ];
        // Accesses outside a sized array are undefined behaviour, not races: only in-bounds
        // executions are considered (this also keeps witnesses inside the array).
        if let Some(len) = self.k.array(q.a.2.array).byte_len() {
            parts.push(crate::smt::in_bounds(&s1.offset, q.a.2.size, len));
            parts.push(crate::smt::in_bounds(&s2.offset, q.b.2.size, len));
        }
        match q.pairing {
            Pairing::InterBlock => parts.push(distinct(&t1.bid, &t2.bid)),
            Pairing::AnyThreads => parts.push(distinct(&t1.tid, &t2.tid)),
            Pairing::DifferentWarps => {
                parts.push(distinct(&t1.tid, &t2.tid));
                parts.push(warp_of(t1, &self.geom).eq(warp_of(t2, &self.geom)).not());
            }
        }
        // Increments of one counter address never hand two threads the same value.
        for c1 in &w1.counter_reads {
            for c2 in w2.counter_reads.iter().filter(|c2| c2.array == c1.array) {
                let per_block = self.k.array(c1.array).space == crate::ir::Space::Shared;
                if (inter && per_block) || c1.value.get_size() != c2.value.get_size() {
                    continue;
                }
                let same = Bool::and(&[c1.ctrl.clone(), c2.ctrl.clone(), c1.offset.eq(&c2.offset)]);
                parts.push(same.implies(c1.value.eq(&c2.value).not()));
            }
        }
        // Two lanes of one group that ran a butterfly reduction together hold its one result.
        if !inter {
            for g1 in &w1.group_reads {
                for g2 in w2.group_reads.iter().filter(|g2| g2.id == g1.id) {
                    let same = Bool::and(&[g1.ok.clone(), g2.ok.clone(), g1.group.eq(&g2.group)]);
                    parts.push(same.implies(g1.value.eq(&g2.value)));
                }
            }
        }
        if let Some((l, first_earlier)) = q.other_iteration {
            if let (Some(r1), Some(r2)) = (w1.iters.get(&l), w2.iters.get(&l)) {
                let (early, late) = if first_earlier { (r1, r2) } else { (r2, r1) };
                parts.push(early.bvult(late));
                if q.consecutive {
                    parts.push(late.eq(early.bvadd(numeral(1, early.get_size()))));
                }
            }
        }
        if let Some(c) = bounds_term(&q.bounds, [&w1, &w2]) {
            parts.push(c);
        }
        if !q.also.is_empty() {
            match bounds_term(std::slice::from_ref(&q.also), [&w1, &w2]) {
                Some(c) => parts.push(c),
                // A bound the walks cannot express: the query would not be the one asked for.
                None => return None,
            }
        }
        if q.differ {
            parts.push(stores_differ(s1, q.a.2.size, s2, q.b.2.size));
        }
        if q.same_coordinates {
            let (o1, o2) = compared_offsets(s1, s2);
            parts.push(super::layout::same_coordinates(o1, o2)?.0);
        }
        if let Some((reader, (l, op, _))) = q.reads_own {
            let (w_r, read, store) = if reader == 1 { (&w1, s1, s2) } else { (&w2, s2, s1) };
            let own = w_r.sites.get(&(l, op))?;
            parts.push(own_store_covers(own, read, store).not());
        }
        // Valid lemmas about offsets in mixed radix: they change no answer, only how fast the
        // solver finds it.
        let (o1, o2) = compared_offsets(s1, s2);
        let mut lemmas = Vec::new();
        radix_lemmas([&w1, &w2], o1, o2, 3, &mut lemmas);
        stride_lemmas([&w1, &w2], &mut lemmas);
        parts.extend(lemmas);
        if let (Some(n), false) = (q.lockstep_group, inter) {
            parts.push(group_of(t1, &self.geom, n).eq(group_of(t2, &self.geom, n)).not());
        }
        let formula = Bool::and(&parts);
        Some(Built {
            w1,
            w2,
            parts,
            formula,
            settled,
        })
    }

    /// Whether the injectivity test proves that the two accesses' element indices are never
    /// equal for the pair of threads `t` (of one block, or of two blocks when `inter`): the
    /// overlap conjunct of the query, its pairing and the geometry facts asserted on the solver
    /// have no common model.
    fn never_equal(
        &self,
        [s1, s2]: [&SiteTerms; 2],
        [size1, size2]: [u32; 2],
        w: [&Walk; 2],
        t: [&ThreadVars; 2],
        inter: bool,
    ) -> bool {
        let Some((i1, i2)) = compared_indices(s1, size1, s2, size2) else {
            return false;
        };
        let pair = injective::Pair {
            t,
            geom: &self.geom,
            bounds: self.bounds,
            same_block: !inter,
            strides: [&w[0].strides, &w[1].strides],
            loops: [&s1.loop_vals, &s2.loop_vals],
        };
        injective::never_equal(&i1, &i2, &pair)
    }

    /// Whether the GCD test or the injectivity test proved `b` unsatisfiable (recorded as the
    /// query's answer, counted once per query, and in the profile as a call that took no
    /// solver).
    fn settled_without_solver(&mut self, b: &Built, q: &Query) -> bool {
        let Some(test) = b.settled else {
            return false;
        };
        self.memo.insert(b.formula.clone(), Outcome::Unsat);
        if self
            .settled_seen
            .insert(((q.a.0, q.a.1), (q.b.0, q.b.1), b.formula.clone()))
        {
            match test {
                Test::Divisible => self.settled.divisible += 1,
                Test::Injective => self.settled.injective += 1,
            }
        }
        let (kind, solver) = match test {
            Test::Divisible => ("divisible", "gcd"),
            Test::Injective => ("injective", "injective"),
        };
        if let Some(p) = &mut self.profile {
            p.push(QueryStat {
                pair: (q.a.0, q.b.0),
                kind: kind.to_string(),
                solver,
                size: 0,
                millis: 0.0,
                result: "unsat",
            });
        }
        true
    }

    /// The sites of a query in the walks of `b`.
    fn sites<'b>(b: &'b Built, q: &Query) -> (&'b SiteTerms, &'b SiteTerms) {
        (&b.w1.sites[&(q.a.0, q.a.1)], &b.w2.sites[&(q.b.0, q.b.1)])
    }

    /// Whether none of the queries `qs` can be satisfied, asked as one solver call on their
    /// disjunction (a few queries of one array and pairing are nearly always all unsatisfiable
    /// together in a race-free kernel; one call costs about what one query does). `false` says
    /// nothing: the queries are then asked one by one. Each disjunct is the query's slice when it
    /// has one (relaxations only, so an unsatisfiable disjunction settles every query).
    pub(crate) fn none_of(&mut self, qs: &[&Query], budget_ms: u32) -> bool {
        let mut alternatives: Vec<Vec<Bool>> = Vec::new();
        let mut formulas = Vec::new();
        for q in qs {
            let Some(b) = self.build(q) else { return false };
            if self.settled_without_solver(&b, q) {
                continue;
            }
            match self.memo.get(&b.formula) {
                Some(Outcome::Unsat) => continue,
                Some(_) => return false,
                None => {}
            }
            let (s1, s2) = Self::sites(&b, q);
            if let Some(g) = self.guess(&b.parts, (q.a.0, q.b.0), self.search_nodes) {
                // A race: the queries are asked one by one, this one already answered.
                let [t1, t2] = if q.pairing == Pairing::InterBlock {
                    self.inter.clone()
                } else {
                    self.intra.clone()
                };
                let outcome = Outcome::Sat(self.witness(&Valuation::Guess(&g), (&t1, s1), (&t2, s2), q));
                self.memo.insert(b.formula.clone(), outcome);
                return false;
            }
            let relaxed = slice(&b.parts, &offset_roots(s1, s2), &self.hubs, &mut self.constants)
                .map_or_else(|| b.formula.clone(), |s| s.formula);
            alternatives.push(conjuncts(&[relaxed]));
            formulas.push(b.formula);
        }
        if alternatives.is_empty() {
            return true;
        }
        if self.deadline_passed() {
            self.expired = true;
            return false;
        }
        // Conjuncts every alternative has (the walks' facts, mostly) are asserted once.
        let sets: Vec<HashSet<&Bool>> = alternatives.iter().map(|a| a.iter().collect()).collect();
        let common: Vec<Bool> = alternatives[0]
            .iter()
            .filter(|c| sets[1..].iter().all(|a| a.contains(c)))
            .cloned()
            .collect();
        let shared: HashSet<&Bool> = common.iter().collect();
        let rest: Vec<Bool> = alternatives
            .iter()
            .map(|a| Bool::and(&a.iter().filter(|c| !shared.contains(c)).cloned().collect::<Vec<_>>()))
            .collect();
        let f = Bool::and(&[Bool::and(&common), Bool::or(&rest)]);
        let res = self.attempt(&f, false, budget_ms, (qs[0].a.0, qs[0].b.0, "group"));
        self.solver.pop(1);
        if res != SatResult::Unsat {
            return false;
        }
        for f in formulas {
            self.memo.insert(f, Outcome::Unsat);
        }
        true
    }

    /// Whether a model of query `q` is found by evaluation (or was found before); `false` says
    /// nothing.
    pub(crate) fn races_by_evaluation(&mut self, q: &Query) -> bool {
        let Some(b) = self.build(q) else { return false };
        if b.settled.is_some() {
            return false;
        }
        match self.memo.get(&b.formula) {
            Some(o) => matches!(o, Outcome::Sat(_)),
            // The race's own model is among the hints, and a model of the pinned query is
            // usually next to it: a short search (a miss assumes the relation).
            None => self
                .guess_anyway(&b.parts, (q.a.0, q.b.0), self.search_nodes / 4)
                .is_some(),
        }
    }

    /// Decides one query.
    /// For a race `q` has found on global memory: the parameters whose values make the racing
    /// elements overlap, when the race needs distinct coordinates of some parameter stride
    /// (no execution of it has both threads at the same coordinates); `None` when it happens
    /// for every layout, or the offsets are not strided by parameters.
    pub(crate) fn overlap_parameters(&mut self, q: &Query) -> Option<Vec<String>> {
        if self.k.array(q.a.2.array).space != Space::Global {
            return None;
        }
        let built = self.build(q)?;
        let (s1, s2) = Self::sites(&built, q);
        let (o1, o2) = compared_offsets(s1, s2);
        let (_, params) = super::layout::same_coordinates(o1, o2)?;
        // A stride that also bounds a loop or decides a branch is a size: a race it makes
        // (a segment loop that runs one element past its length) is not a layout's.
        let in_conditions = self
            .params_in_conditions
            .get_or_insert_with(|| super::super::syntax::params_in_conditions(self.k));
        if params.iter().any(|p| in_conditions.contains(p)) {
            return None;
        }
        let same = Query {
            same_coordinates: true,
            ..q.clone()
        };
        matches!(self.run(&same), Outcome::Unsat).then_some(params)
    }

    pub(crate) fn run(&mut self, q: &Query) -> Outcome {
        let Some(built) = self.build(q) else {
            return Outcome::Unknown;
        };
        let inter = q.pairing == Pairing::InterBlock;
        let (w1, w2) = (&built.w1, &built.w2);
        let (s1, s2) = Self::sites(&built, q);
        let [t1, t2] = if inter { self.inter.clone() } else { self.intra.clone() };
        let (t1, t2) = (&t1, &t2);
        let (parts, formula) = (&built.parts, &built.formula);
        if self.settled_without_solver(&built, q) {
            return Outcome::Unsat;
        }
        if let Some(o) = self.memo.get(formula) {
            return o.clone();
        }
        if self.deadline_passed() {
            self.expired = true;
            return Outcome::Unknown;
        }
        // Attempts, cheapest first: the slice of the query connected to the two offsets, when it
        // is less than half of it (most facts of a long kernel are about other values; dropping
        // conjuncts only relaxes the query, so an unsatisfiable slice settles it); the query
        // with a small budget (most queries are easy); with products of unknowns in the offsets
        // (2-D indices with a symbolic row length), their abstraction without multiplier
        // circuits, bit-blasted (an unsatisfiable abstraction settles the query, which the full
        // query rarely does within a small budget); the query with larger budgets, and on the
        // fallback solver. Only the full query's models are witnesses.
        #[derive(PartialEq, Clone, Copy)]
        enum Form {
            Full,
            Sliced,
            Abstract,
        }
        if let Some(g) = self.guess(parts, (q.a.0, q.b.0), self.search_nodes) {
            let outcome = Outcome::Sat(self.witness(&Valuation::Guess(&g), (t1, s1), (t2, s2), q));
            self.memo.insert(formula.clone(), outcome.clone());
            return outcome;
        }
        let slice = slice(parts, &offset_roots(s1, s2), &self.hubs, &mut self.constants);
        let abstracted = abstract_products(
            slice.as_ref().map_or(formula, |s| &s.formula),
            [w1, w2],
            [&s1.offset, &s2.offset],
        );
        let budget = self.timeout_ms;
        let mut plan = Vec::new();
        let sliced = slice.filter(|s| s.small).map(|s| s.formula);
        if sliced.is_some() {
            plan.push((Form::Sliced, false, budget.div_ceil(32)));
        }
        plan.push((Form::Full, false, budget.div_ceil(32)));
        if abstracted.is_some() {
            plan.push((Form::Abstract, true, budget.div_ceil(2)));
        }
        plan.push((Form::Full, false, budget.div_ceil(8)));
        plan.push((Form::Full, false, budget));
        plan.push((Form::Full, true, budget));
        let kind = if inter { "inter" } else { "intra" };
        let abstract_kind = format!("{kind}/abstract");
        let mut outcome = Outcome::Unknown;
        let clock_stops = self.clock_stops;
        for (form, fallback, ms) in plan {
            if self.deadline_passed() {
                self.expired = true;
                break;
            }
            let (f, what) = match (&form, &abstracted, &sliced) {
                (Form::Abstract, Some(a), _) => (a, abstract_kind.as_str()),
                (Form::Sliced, _, Some(s)) => (s, "slice"),
                _ => (formula, kind),
            };
            let res = self.attempt(f, fallback, ms, (q.a.0, q.b.0, what));
            let solver = self.holder(fallback);
            let mut learned = guess::Hints::new();
            let decided = match (form, res) {
                (_, SatResult::Unsat) => Some(Outcome::Unsat),
                (Form::Full, SatResult::Sat) => Some(match solver.get_model() {
                    Some(m) => {
                        let mut all = self.geometry_facts.clone();
                        all.extend(parts.iter().cloned());
                        guess::remember_model(&all, &m, &mut learned);
                        let m = if self.small_witnesses {
                            smaller_model(self.k, solver, &self.geom, m, [t1, t2])
                        } else {
                            m
                        };
                        Outcome::Sat(self.witness(&Valuation::Model(&m), (t1, s1), (t2, s2), q))
                    }
                    None => Outcome::Unknown,
                }),
                (Form::Sliced, SatResult::Sat) => {
                    if let (Some(m), Some(s)) = (solver.get_model(), &sliced) {
                        guess::remember_model(&conjuncts(std::slice::from_ref(s)), &m, &mut learned);
                    }
                    None
                }
                _ => None,
            };
            self.holder(fallback).pop(1);
            let slice_model = form == Form::Sliced && res == SatResult::Sat;
            self.hints.extend(learned);
            if let Some(o) = decided {
                outcome = o;
                break;
            }
            // A model of the slice fixes the constants the offsets depend on; the rest of the
            // query (facts about other values) is usually satisfied around it.
            if slice_model {
                if let Some(g) = self.guess_anyway(parts, (q.a.0, q.b.0), self.search_nodes) {
                    outcome = Outcome::Sat(self.witness(&Valuation::Guess(&g), (t1, s1), (t2, s2), q));
                    break;
                }
            }
        }
        // An attempt the clock stopped is retried with a larger budget; only an undecided end
        // makes the answer depend on the machine's load.
        if matches!(outcome, Outcome::Unknown) && self.clock_stops > clock_stops {
            self.wall_limited = true;
        }
        self.memo.insert(formula.clone(), outcome.clone());
        outcome
    }

    fn witness(&self, m: &Valuation, a: (&ThreadVars, &SiteTerms), b: (&ThreadVars, &SiteTerms), q: &Query) -> Witness {
        let val = |x: &BV| m.value(x);
        let sval = |x: &BV| m.value(x).map(|u| u as i64);
        let coords = |t: &ThreadVars| ThreadId {
            thread: std::array::from_fn(|i| val(&t.tid[i]).unwrap_or(0) as u32),
            block: std::array::from_fn(|i| val(&t.bid[i]).unwrap_or(0) as u32),
        };
        let mut values = Vec::new();
        for (v, x1) in &a.1.loop_vals {
            let name = self.k.var(*v).name.clone();
            let v1 = signed_value(self.k, *v, m, x1);
            let v2 =
                b.1.loop_vals
                    .iter()
                    .find(|(w, _)| w == v)
                    .map(|(_, x2)| signed_value(self.k, *v, m, x2));
            values.push((name, v1, v2.filter(|x| *x != v1)));
        }
        for (v, x2) in &b.1.loop_vals {
            if !a.1.loop_vals.iter().any(|(w, _)| w == v) {
                values.push((
                    format!("{} (thread 2)", self.k.var(*v).name),
                    signed_value(self.k, *v, m, x2),
                    None,
                ));
            }
        }
        for var in self.k.vars.iter().filter(|v| v.kind == VarKind::Param && v.ty.is_int()) {
            if self.k.launch.params.contains_key(&var.name) {
                continue;
            }
            let bits = match var.ty {
                ScalarTy::Int { bits, .. } => bits as u32,
                _ => continue,
            };
            let c = BV::new_const(format!("param_{}", var.name), bits);
            if let Some(x) = m.assigned(&c) {
                values.push((var.name.clone(), var.ty.normalize(x as i64), None));
            }
        }
        let o1 = sval(&a.1.offset);
        let o2 = sval(&b.1.offset);
        let byte_offset = match (o1, o2) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        let elem = self.k.array(q.a.2.array).elem_size.max(1) as i64;
        Witness {
            threads: vec![coords(a.0), coords(b.0)],
            values,
            index: byte_offset.map(|o| o.div_euclid(elem)),
            byte_offset,
        }
    }
}

/// Appends the query to the file `AUTOSYNC_DUMP_QUERIES` names, as SMT-LIB: how an alarm on
/// production code is triaged (docs/performance.md). Best effort; never changes an answer.
fn dump_query(solver: &Solver, kind: &str, fallback: bool) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("AUTOSYNC_DUMP_QUERIES") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, ";; QUERY {kind} fallback={fallback}\n{solver}");
    }
}
