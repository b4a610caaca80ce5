//! Conflict queries: can two threads touch overlapping bytes of one array, at least one writing,
//! at two given accesses under a given iteration relation? Answered with Z3 on bit-vectors.

use super::divisible;
use super::guess::{self, Guess};
use super::levels::Uniformity;
use super::symex::{self, Detail, Product, SiteTerms, Val, Walk};
use super::threads::{geometry, geometry_constraints, group_of, warp_of, Geometry, ThreadVars};
use crate::ir::*;
use crate::report::{ThreadId, Witness};
use crate::smt::{conjuncts, numeral, op_kind, resize};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{DeclKind, Model, SatResult, Solver};

/// The two coordinate triples differ somewhere.
fn distinct(a: &[BV; 3], b: &[BV; 3]) -> Bool {
    Bool::or(&[a[0].eq(&b[0]).not(), a[1].eq(&b[1]).not(), a[2].eq(&b[2]).not()])
}

/// Where one thread's access is in one of its loops, known from the barrier-free path that
/// connects the two accesses (the barrier intervals find the paths; a query narrowed by their
/// bounds considers only the executions one of them allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Bound {
    /// In the given iteration of the loop (0: the first).
    Iter(Label, u32),
    /// In the loop's last iteration.
    Last(Label),
    /// The loop's first test failed (the path bypassed it): its body never ran there.
    Skipped(Label),
}

/// One path's bounds: (thread 1 or 2, bound); every bound of the set holds.
pub(crate) type PathBounds = Vec<(u8, Bound)>;

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
    /// Look for witnesses with small parameter values (costs up to three more solver calls per
    /// race).
    pub small_witnesses: bool,
    /// See [`super::SdvOptions::assume_loop_relations`].
    pub assume_loop_relations: bool,
    /// See [`super::SdvOptions::search_nodes`].
    pub search_nodes: usize,
    /// Every solver call, when profiling.
    pub profile: Option<Vec<QueryStat>>,
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

/// A query's formula and the walks it is built from.
struct Built {
    w1: Rc<Walk>,
    w2: Rc<Walk>,
    /// The conjuncts of `formula`, as assembled.
    parts: Vec<Bool>,
    formula: Bool,
    /// The offsets never overlap by the GCD test: the query is unsatisfiable.
    disjoint: bool,
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
            walks: HashMap::new(),
            memo: HashMap::new(),
            constants: HashMap::new(),
            hubs,
            queries: 0,
            spent: 0,
            resources_seen: 0,
            timeout_ms,
            deadline,
            expired: false,
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
        let started = std::time::Instant::now();
        let res = solver.check();
        let millis = started.elapsed().as_secs_f64() * 1000.0;
        // Z3's resource count is per context and only grows: the difference is this check's.
        let count = match solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
            _ => self.resources_seen,
        };
        self.spent += count.saturating_sub(self.resources_seen);
        self.resources_seen = count;
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
        if let Some((reader, (l, op, _))) = q.reads_own {
            let (w_r, read, store) = if reader == 1 { (&w1, s1, s2) } else { (&w2, s2, s1) };
            let own = w_r.sites.get(&(l, op))?;
            parts.push(own_store_covers(own, read, store).not());
        }
        // Valid lemmas about offsets in mixed radix: they change no answer, only how fast the
        // solver finds it.
        let (o1, o2) = match (&s1.index, &s2.index) {
            (Some((i1, _)), Some((i2, _))) if s1.base == s2.base => (i1, i2),
            _ => (&s1.offset, &s2.offset),
        };
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
            disjoint,
        })
    }

    /// Whether the GCD test proved `b` unsatisfiable (recorded as the query's answer, and in the
    /// profile as a call that took no solver).
    fn settled_by_divisibility(&mut self, b: &Built, q: &Query) -> bool {
        if !b.disjoint {
            return false;
        }
        self.memo.insert(b.formula.clone(), Outcome::Unsat);
        if let Some(p) = &mut self.profile {
            p.push(QueryStat {
                pair: (q.a.0, q.b.0),
                kind: "divisible".to_string(),
                solver: "gcd",
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
            if self.settled_by_divisibility(&b, q) {
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
        if b.disjoint {
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
        if self.settled_by_divisibility(&built, q) {
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

/// Where a witness's values come from: a solver's model, or an assignment found by
/// evaluation.
enum Valuation<'a> {
    Model(&'a Model),
    Guess(&'a Guess),
}

impl Valuation<'_> {
    /// The value of `x` (constants not assigned taken as 0).
    fn value(&self, x: &BV) -> Option<u64> {
        match self {
            Valuation::Model(m) => m.eval(x, true).and_then(|v| v.as_u64()),
            Valuation::Guess(g) => g.value(x),
        }
    }

    /// The value of the constant `c`, only when it is assigned one.
    fn assigned(&self, c: &BV) -> Option<u64> {
        match self {
            Valuation::Model(m) => m.eval(c, false).and_then(|v| v.as_u64()),
            Valuation::Guess(g) => g.assigns(c).then(|| g.value(c)).flatten(),
        }
    }
}

/// A model of the asserted query whose kernel parameters (and block indices, and grid size
/// when symbolic) are small and non-negative, when one exists at one of a few bounds: a
/// witness a user recognises (`n = 3` rather than `n = 2080374768`). Falls back to `m`.
fn smaller_model(k: &Kernel, solver: &Solver, geom: &Geometry, m: Model, threads: [&ThreadVars; 2]) -> Model {
    let mut small: Vec<(BV, bool)> = Vec::new();
    for var in k.vars.iter().filter(|v| v.kind == VarKind::Param) {
        if k.launch.params.contains_key(&var.name) {
            continue;
        }
        if let ScalarTy::Int { bits, signed } = var.ty {
            small.push((BV::new_const(format!("param_{}", var.name), bits as u32), signed));
        }
    }
    for t in threads {
        small.extend(t.bid.iter().map(|b| (b.clone(), false)));
    }
    if k.launch.grid_dim.is_none() {
        small.extend(geom.gdim.iter().map(|g| (g.clone(), false)));
    }
    if small.is_empty() {
        return m;
    }
    for bound in [16u64, 1024, 1 << 20] {
        let within: Vec<Bool> = small
            .iter()
            .map(|(x, signed)| {
                let b = numeral(bound, x.get_size());
                if *signed {
                    Bool::and(&[x.bvsge(numeral(0, x.get_size())), x.bvsle(&b)])
                } else {
                    x.bvule(&b)
                }
            })
            .collect();
        solver.push();
        solver.assert(Bool::and(&within));
        let found = match solver.check() {
            SatResult::Sat => solver.get_model(),
            _ => None,
        };
        solver.pop(1);
        if let Some(better) = found {
            return better;
        }
    }
    m
}

/// The disjunction of the paths' bounds, or `None` when some path's bounds say nothing the walks
/// can express.
fn bounds_term(alternatives: &[PathBounds], walks: [&Walk; 2]) -> Option<Bool> {
    let mut terms = Vec::new();
    for alt in alternatives {
        let conj: Vec<Bool> = alt
            .iter()
            .filter_map(|(t, b)| {
                let w = walks[(*t as usize).clamp(1, 2) - 1];
                match b {
                    Bound::Iter(l, j) => {
                        let it = w.iters.get(l)?.eq(numeral(*j as u64, 32));
                        match (j, w.first.get(l)) {
                            (0, Some(f)) => Some(Bool::and(&[it, f.clone()])),
                            _ => Some(it),
                        }
                    }
                    Bound::Last(l) => w.last.get(l).cloned(),
                    Bound::Skipped(l) => w.skipped.get(l).cloned(),
                }
            })
            .collect();
        if conj.is_empty() {
            return None;
        }
        terms.push(Bool::and(&conj));
    }
    (!terms.is_empty()).then(|| Bool::or(&terms))
}

/// The model value of `x`, read with the signedness of variable `v`'s type.
fn signed_value(k: &Kernel, v: VarId, m: &Valuation, x: &BV) -> i64 {
    let u = m.value(x).unwrap_or(0);
    match k.var(v).ty {
        ty if ty.is_signed() => ty.normalize(u as i64),
        _ => u as i64,
    }
}

/// The number of distinct terms of `f`.
fn term_count(f: &Bool) -> usize {
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut stack = vec![Dynamic::from_ast(f)];
    while let Some(t) = stack.pop() {
        if seen.insert(t.clone()) {
            stack.extend(t.children());
        }
    }
    seen.len()
}

/// The products of two unknowns in the terms, as recorded by the walks (each once).
fn products_in(walks: [&Walk; 2], terms: &[&BV]) -> Vec<Product> {
    let mut out: Vec<Product> = Vec::new();
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut stack: Vec<Dynamic> = terms.iter().map(|t| Dynamic::from_ast(*t)).collect();
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        if let Some(b) = t.as_bv() {
            if let Some(p) = walks.iter().find_map(|w| w.products.get(&b)) {
                out.push(p.clone());
            }
        }
        stack.extend(t.children());
    }
    out
}

/// `formula` with every product of two unknowns that the offsets contain replaced by a fresh
/// value, with facts of integer multiplication about the fresh values; `None` when the offsets
/// contain no such product.
///
/// A fresh value stands for the product exactly when the product does not overflow: always for
/// signed products (overflow is undefined behaviour: their no-overflow conditions, which the
/// formula asserts, become `true`), and for unsigned ones when the operands are small enough
/// ([`unsigned_exact`]); the facts hold under that condition. So the abstraction has a model
/// whenever the formula does. The facts are what separates `row1 * pitch + col1` from
/// `row2 * pitch + col2` with `0 <= col < pitch`: for a shared operand y, different other
/// operands put the products at least |y| apart, in the direction of their difference. A solver
/// proves that with adders and comparators; through two multiplier circuits it times out.
fn abstract_products(formula: &Bool, walks: [&Walk; 2], offsets: [&BV; 2]) -> Option<Bool> {
    if walks.iter().all(|w| w.products.is_empty()) {
        return None;
    }
    let products = products_in(walks, &offsets);
    if products.is_empty() {
        return None;
    }
    let fresh: Vec<BV> = (0..products.len())
        .map(|i| BV::fresh_const("prod", products[i].x.get_size()))
        .collect();
    let mut subst: Vec<(Dynamic, Dynamic)> = Vec::new();
    for (p, f) in products.iter().zip(&fresh) {
        subst.push((Dynamic::from_ast(&p.x.bvmul(&p.y)), Dynamic::from_ast(f)));
        if p.signed {
            let nov = crate::smt::signed_mul_facts(&p.x, &p.y);
            subst.push((Dynamic::from_ast(&nov), Dynamic::from_ast(&Bool::from_bool(true))));
        }
    }
    let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
    let mut parts = vec![formula.substitute(&pairs)];
    let exact: Vec<Bool> = products
        .iter()
        .map(|p| {
            if p.signed {
                Bool::from_bool(true)
            } else {
                unsigned_exact(&p.x, &p.y)
            }
        })
        .collect();
    let zero = |v: &BV| numeral(0, v.get_size());
    for ((p, f), e) in products.iter().zip(&fresh).zip(&exact) {
        // Exact products fit their own width: two more bits hold differences and magnitudes.
        let w = |v: &BV| if p.signed { v.sign_ext(2) } else { v.zero_ext(2) };
        let (x, y, fw) = (w(&p.x), w(&p.y), w(f));
        let mut facts = vec![Bool::or(&[p.x.eq(zero(&p.x)), p.y.eq(zero(&p.y))]).eq(f.eq(zero(f)))];
        if p.signed {
            let neg = |v: &BV| v.bvslt(zero(v));
            facts.push(f.eq(zero(f)).not().implies(neg(f).eq(neg(&p.x).xor(neg(&p.y)))));
        }
        let abs = |v: &BV| v.bvslt(zero(v)).ite(&v.bvneg(), v);
        facts.push(p.x.eq(zero(&p.x)).not().implies(abs(&fw).bvsge(abs(&y))));
        facts.push(p.y.eq(zero(&p.y)).not().implies(abs(&fw).bvsge(abs(&x))));
        // Upper bounds by shifts: |x| < 2^k gives |x * y| < |y| * 2^k (in 2w bits, exact), at
        // a few k (each is a wide comparison the solver must carry).
        let wide = |v: &BV| {
            if p.signed {
                v.sign_ext(v.get_size())
            } else {
                v.zero_ext(v.get_size())
            }
        };
        let (xw, yw, pw) = (abs(&wide(&p.x)), abs(&wide(&p.y)), abs(&wide(f)));
        let n = p.x.get_size();
        for k in (4..n).step_by(4) {
            let bound = numeral(1u64 << k.min(63), 2 * n);
            let shift = numeral(k as u64, 2 * n);
            facts.push(xw.bvult(&bound).implies(pw.bvult(yw.bvshl(&shift))));
            facts.push(yw.bvult(&bound).implies(pw.bvult(xw.bvshl(&shift))));
        }
        parts.push(e.implies(Bool::and(&facts)));
    }
    for i in 0..products.len() {
        for j in i + 1..products.len() {
            let (a, b) = (&products[i], &products[j]);
            if a.x.get_size() != b.x.get_size() || a.signed != b.signed {
                continue;
            }
            let Some((xa, xb, y)) = a.shared_operand(b) else {
                continue;
            };
            // Equal operands give equal products, overflow or not.
            parts.push(xa.eq(xb).implies(fresh[i].eq(&fresh[j])));
            // (Pa - Pb) = (xa - xb) * y, exactly.
            let w = |v: &BV| if a.signed { v.sign_ext(2) } else { v.zero_ext(2) };
            let d = w(xa).bvsub(w(xb));
            let gap = w(&fresh[i]).bvsub(w(&fresh[j]));
            let yw = w(y);
            let zw = zero(&yw);
            let pos = |v: &BV| v.bvsgt(zero(v));
            let neg = |v: &BV| v.bvslt(zero(v));
            let facts = [
                y.eq(zero(y)).implies(gap.eq(&zw)),
                Bool::and(&[pos(&d), pos(&yw)]).implies(gap.bvsge(&yw)),
                Bool::and(&[neg(&d), pos(&yw)]).implies(gap.bvsle(yw.bvneg())),
                Bool::and(&[pos(&d), neg(&yw)]).implies(gap.bvsle(&yw)),
                Bool::and(&[neg(&d), neg(&yw)]).implies(gap.bvsge(yw.bvneg())),
            ];
            parts.push(Bool::and(&[exact[i].clone(), exact[j].clone()]).implies(Bool::and(&facts)));
        }
    }
    Some(Bool::and(&parts))
}

/// The addends of `t` (nested `bvadd`s flattened).
fn addends(t: &BV) -> Vec<BV> {
    let mut out = Vec::new();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if op_kind(&Dynamic::from_ast(&x)) == Some(DeclKind::Badd as u32) {
            stack.extend(x.children().iter().rev().filter_map(|c| c.as_bv()));
        } else {
            out.push(x);
        }
    }
    out
}

/// Lemmas of integer arithmetic that equal mixed-radix offsets have equal digits: when
/// `t1 = y1 * w + c1` and `t2 = y2 * w + c2` (products of unknowns with a shared operand `w`, as
/// recorded by the walks), `0 <= ci < w`, and neither product nor sum overflows, then
/// `t1 = t2` gives `y1 = y2` and `c1 = c2`; likewise for the digits, a few levels deep
/// (`(z * h + y) * w + x`).
///
/// Each lemma states its premises, so it is a valid bit-vector formula: conjoined to a query it
/// changes no answer. What it changes is the proof: that a row offset is a multiple of a
/// symbolic row length and a column stays below it is what separates the two rows, and a
/// solver that bit-blasts the multipliers does not find that argument on its own (the
/// inter-block query of a guarded `out[dim * n + i]` store: seconds without the lemma,
/// milliseconds with it).
fn radix_lemmas(walks: [&Walk; 2], t1: &BV, t2: &BV, depth: u32, out: &mut Vec<Bool>) {
    const MAX_LEMMAS: usize = 16;
    if depth == 0 || t1.get_size() != t2.get_size() || out.len() >= MAX_LEMMAS {
        return;
    }
    let products = |t: &BV| -> Vec<(BV, Product, BV)> {
        let parts = addends(t);
        let mut found = Vec::new();
        for (i, a) in parts.iter().enumerate() {
            if let Some(p) = walks.iter().find_map(|w| w.products.get(a)) {
                let rest: Vec<&BV> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, b)| b)
                    .collect();
                let c = match rest.as_slice() {
                    [] => numeral(0, t.get_size()),
                    [one] => (*one).clone(),
                    more => more[1..].iter().fold(more[0].clone(), |acc, b| acc.bvadd(*b)),
                };
                found.push((a.clone(), p.clone(), c));
            }
        }
        found
    };
    let (ps1, ps2) = (products(t1), products(t2));
    for (prod1, p1, c1) in &ps1 {
        for (prod2, p2, c2) in &ps2 {
            if p1.signed != p2.signed || p1.x.get_size() != t1.get_size() || p2.x.get_size() != t1.get_size() {
                continue;
            }
            let Some((y1, y2, w)) = p1.shared_operand(p2) else {
                continue;
            };
            let zero = numeral(0, w.get_size());
            let sites = [(t1, p1, prod1, c1, y1), (t2, p2, prod2, c2, y2)];
            let conclusion = Bool::and(&[y1.eq(y2), c1.eq(c2)]);
            let mut premises = vec![t1.eq(t2)];
            for (t, p, prod, c, y) in sites {
                if p.signed {
                    // Non-negative digits of a signed product: the walks' facts about the
                    // product (the same terms, so these premises cost the solver nothing) are
                    // exact for non-negative operands, so `y * w` and `c` are below 2^31 and
                    // `prod + c` cannot wrap as an unsigned sum (it may overflow as a signed
                    // one when part of it was computed unsigned: no premise about it).
                    premises.extend([
                        crate::smt::signed_mul_facts(&p.x, &p.y),
                        y.bvsge(&zero),
                        w.bvsgt(&zero),
                        c.bvult(w),
                    ]);
                } else {
                    // Unsigned digits: no overflow of the product, `c < w`, no wrap of `prod + c`.
                    premises.extend([p.x.bvmul_no_overflow(&p.y, false), c.bvult(w), t.bvuge(prod)]);
                }
            }
            out.push(Bool::and(&premises).implies(conclusion));
            radix_lemmas(walks, y1, y2, depth - 1, out);
            radix_lemmas(walks, c1, c2, depth - 1, out);
        }
    }
}

/// Stride lemmas: an additive induction variable of one loop in both walks, with the same
/// symbolic step (`i += gridDim.x * blockDim.x`), at equal values in iterations `r1` and `r2`
/// with entry values closer than the step, is in the same iteration: `init1 + r1 * s =
/// init2 + r2 * s` exactly means `(r2 - r1) * s = init1 - init2`, and `|init1 - init2| < |s|`
/// leaves `r1 = r2`. The premises include the walks' no-wrap conditions, so each lemma is a
/// valid formula. Grid-, block- and warp-stride loops (distinct threads start at distinct
/// offsets below the stride) then need no multiplier reasoning to see that two threads never
/// visit the same index. Numeral steps are skipped: `r * c` is linear.
fn stride_lemmas(walks: [&Walk; 2], out: &mut Vec<Bool>) {
    for s1 in &walks[0].strides {
        for s2 in &walks[1].strides {
            let same = s1.lp == s2.lp && s1.var == s2.var && s1.step == s2.step;
            if !same || s1.count == s2.count || s1.step.as_u64().is_some() || s1.val.get_size() != s2.val.get_size() {
                continue;
            }
            out.push(stride_lemma(s1, s2));
        }
    }
}

/// The lemma of [`stride_lemmas`] for one pair of strides (same step term).
fn stride_lemma(s1: &symex::Stride, s2: &symex::Stride) -> Bool {
    let zero = numeral(0, s1.step.get_size());
    let step = &s1.step;
    let magnitude = step.bvslt(&zero).ite(&step.bvneg(), step);
    let diff = s1.init.bvsub(&s2.init);
    let close = Bool::and(&[diff.bvslt(&magnitude), diff.bvneg().bvslt(&magnitude)]);
    let premises = Bool::and(&[s1.fits.clone(), s2.fits.clone(), s1.val.eq(&s2.val), close]);
    premises.implies(s1.count.eq(&s2.count))
}

/// A condition under which the unsigned product `x * y` does not overflow: one operand below
/// 2^k and the other below 2^(w-k) for one of a few splits k (or an operand at most 1).
fn unsigned_exact(x: &BV, y: &BV) -> Bool {
    let w = x.get_size();
    let below = |v: &BV, bits: u32| v.bvult(numeral(1u64.checked_shl(bits).unwrap_or(u64::MAX), w));
    let one = numeral(1, w);
    let mut cases = vec![x.bvule(&one), y.bvule(&one)];
    for k in (4..w).step_by(4) {
        cases.push(Bool::and(&[below(x, k), below(y, w - k)]));
    }
    Bool::or(&cases)
}

/// The reading thread's own earlier store `own` wrote exactly the bytes the load `read` reads,
/// with the value the other thread's `store` writes to them.
fn own_store_covers(own: &SiteTerms, read: &SiteTerms, store: &SiteTerms) -> Bool {
    let same_value = match (&own.stored, &store.stored) {
        (Some(Val::Bv(x)), Some(Val::Bv(y))) if x.get_size() == y.get_size() => x.eq(y),
        (Some(Val::B(x)), Some(Val::B(y))) => x.eq(y),
        _ => return Bool::from_bool(false),
    };
    Bool::and(&[
        own.at.ctrl.clone(),
        own.offset.eq(&read.offset),
        store.offset.eq(&read.offset),
        same_value,
    ])
}

/// Two stores write different bytes (another offset or size) or different values; `true`
/// when their values cannot be compared (not both stores, or values of different widths).
fn stores_differ(a: &SiteTerms, size_a: u32, b: &SiteTerms, size_b: u32) -> Bool {
    let same_value = match (&a.stored, &b.stored) {
        (Some(Val::Bv(x)), Some(Val::Bv(y))) if x.get_size() == y.get_size() => x.eq(y),
        (Some(Val::B(x)), Some(Val::B(y))) => x.eq(y),
        _ => return Bool::from_bool(true),
    };
    if size_a != size_b {
        return Bool::from_bool(true);
    }
    Bool::and(&[a.offset.eq(&b.offset), same_value]).not()
}

/// The two accesses touch a common byte. Accesses of one size at `base + index * size` with
/// one base term overlap exactly when the indices (extended to 64 bits) are equal, which the
/// solver decides far more easily than the byte ranges.
/// Also whether the GCD test ([`divisible`]) proves they never do.
fn overlap(a: &SiteTerms, s1: u32, b: &SiteTerms, s2: u32) -> (Bool, bool) {
    if let (Some((i1, x1)), Some((i2, x2)), true) = (&a.index, &b.index, s1 == s2 && a.base == b.base) {
        let (i1, i2) = if x1 == x2 && i1.get_size() == i2.get_size() {
            (i1.clone(), i2.clone())
        } else {
            (resize(i1, 64, *x1), resize(i2, 64, *x2))
        };
        return (i1.eq(&i2), divisible::never_equal(&i1, &i2));
    }
    let never = divisible::never_overlap(&a.offset, s1, &b.offset, s2);
    (byte_overlap(&a.offset, s1, &b.offset, s2), never)
}

/// `[o1, o1+s1)` and `[o2, o2+s2)` intersect (computed in 66 bits: no wrap-around).
fn byte_overlap(o1: &BV, s1: u32, o2: &BV, s2: u32) -> Bool {
    let x1 = o1.sign_ext(2);
    let x2 = o2.sign_ext(2);
    let e1 = x1.bvadd(numeral(s1 as u64, 66));
    let e2 = x2.bvadd(numeral(s2 as u64, 66));
    Bool::and(&[x1.bvslt(&e2), x2.bvslt(&e1)])
}

/// Names of the uninterpreted constants in `root` (memoized per term; an explicit stack, as
/// terms of long straight-line kernels are deep).
fn constants(root: &Dynamic, memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>) -> Rc<HashSet<String>> {
    let mut stack = vec![(root.clone(), false)];
    while let Some((t, expanded)) = stack.pop() {
        if memo.contains_key(&t) {
            continue;
        }
        if t.kind() == z3::AstKind::App && t.num_children() == 0 {
            let name = t.to_string();
            let mut out = HashSet::new();
            // `true`, `false` and an empty `and`/`or` are applications without arguments too.
            if !matches!(name.as_str(), "true" | "false" | "and" | "or") {
                out.insert(name);
            }
            memo.insert(t, Rc::new(out));
        } else if expanded {
            let mut out = HashSet::new();
            for c in t.children() {
                out.extend(memo[&c].iter().cloned());
            }
            memo.insert(t, Rc::new(out));
        } else {
            let children = t.children();
            stack.push((t, true));
            stack.extend(
                children
                    .into_iter()
                    .filter(|c| !memo.contains_key(c))
                    .map(|c| (c, false)),
            );
        }
    }
    memo[root].clone()
}

/// The two offsets of a query, as the roots of its slice.
fn offset_roots(s1: &SiteTerms, s2: &SiteTerms) -> [Dynamic; 2] {
    [Dynamic::from_ast(&s1.offset), Dynamic::from_ast(&s2.offset)]
}

/// The conjuncts of `parts` connected to the terms `roots` through constants other than the
/// thread and block indices named in `hubs` (nearly every conjunct mentions those); `None` when
/// that is all of them. Dropping conjuncts only relaxes the query, so an unsatisfiable slice
/// proves the whole query unsatisfiable.
pub(crate) fn slice(
    parts: &[Bool],
    roots: &[Dynamic],
    hubs: &HashSet<String>,
    memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>,
) -> Option<Slice> {
    let all = conjuncts(parts);
    let hub = |n: &str| hubs.contains(n);
    let names = |t: &Dynamic, memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>| -> HashSet<String> {
        constants(t, memo).iter().filter(|n| !hub(n)).cloned().collect()
    };
    // A conjunct is taken when its anchor meets what the roots depend on; taking it adds all
    // its constants. The anchor of `c => x` is `x` alone: a path condition says when a fact
    // holds, not what it is about (most facts of a kernel sit under conditions on its
    // parameters, which would otherwise connect every fact to every offset).
    let (vars, anchors): (Vec<HashSet<String>>, Vec<HashSet<String>>) = all
        .iter()
        .map(|c| {
            let vars = names(&Dynamic::from_ast(c), memo);
            let anchor = if op_kind(&Dynamic::from_ast(c)) == Some(DeclKind::Implies as u32) {
                names(&c.children()[1], memo)
            } else {
                vars.clone()
            };
            (vars, anchor)
        })
        .unzip();
    let mut live: HashSet<String> = HashSet::new();
    for o in roots {
        live.extend(constants(o, memo).iter().filter(|n| !hub(n)).cloned());
    }
    let mut taken = vec![false; all.len()];
    loop {
        let mut grew = false;
        for (i, (v, a)) in vars.iter().zip(&anchors).enumerate() {
            if !taken[i] && (a.is_empty() || a.iter().any(|n| live.contains(n))) {
                taken[i] = true;
                grew = true;
                live.extend(v.iter().cloned());
            }
        }
        if !grew {
            break;
        }
    }
    let total = all.len();
    let kept: Vec<Bool> = all.into_iter().zip(taken).filter(|(_, t)| *t).map(|(c, _)| c).collect();
    (kept.len() < total).then(|| Slice {
        formula: Bool::and(&kept),
        small: kept.len() * 2 <= total,
    })
}

/// What [`slice`] keeps of a formula.
pub(crate) struct Slice {
    /// The kept conjuncts.
    pub formula: Bool,
    /// At most half of the conjuncts are kept: worth a solver call of its own (a slice that
    /// keeps most of the query costs about as much as the query).
    pub small: bool,
}

#[cfg(test)]
mod slice_tests {
    use super::*;

    #[test]
    fn slice_keeps_what_the_offsets_depend_on_and_drops_the_rest() {
        crate::smt::fresh_context(|| {
            let bv = |n: &str| BV::new_const(n, 32);
            let (tid, it, n, other, more) = (bv("tid1_x"), bv("it5_s"), bv("param_n"), bv("x9_s"), bv("x10_s"));
            let offset = tid.bvadd(&it);
            let c = |v: u64| BV::from_u64(v, 32);
            let parts = vec![
                // Connected to the offset through `it`, and `n` through `it`.
                Bool::and(&[it.bvult(&n), Bool::from_bool(true).implies(n.bvult(c(8)))]),
                // Only thread indices: kept.
                tid.bvult(c(32)),
                // About other values: dropped.
                other.bvadd(&more).eq(c(3)),
                more.bvult(c(5)),
                other.bvugt(&tid),
            ];
            let memo = &mut HashMap::new();
            let hubs: HashSet<String> = ThreadVars::new(1).index_names().collect();
            let s = slice(&parts, &[Dynamic::from_ast(&offset)], &hubs, memo).expect("drops conjuncts");
            assert!(s.small, "drops half of the conjuncts");
            let text = s.formula.to_string();
            assert!(text.contains("param_n") && text.contains("tid1_x"), "{text}");
            assert!(!text.contains("x9_s") && !text.contains("x10_s"), "{text}");
            // Nothing to drop: no slice.
            assert!(slice(&parts[..2], &[Dynamic::from_ast(&offset)], &hubs, memo).is_none());
        });
    }

    #[test]
    fn facts_under_a_path_condition_are_sliced_by_what_they_say() {
        crate::smt::fresh_context(|| {
            let bv = |n: &str| BV::new_const(n, 32);
            let (tid, n, it, ex) = (bv("tid1_x"), bv("param_n"), bv("it5_s"), bv("ex9_s"));
            let c = |v: u64| BV::from_u64(v, 32);
            let offset = tid.bvadd(&it);
            // The path condition mentions `n`, which the offset's own guard connects to; the
            // facts under it are about `it` (kept) and about another loop's exit count (dropped).
            let guard = it.bvult(&n);
            let parts = vec![
                guard.clone(),
                guard.implies(Bool::and(&[it.bvult(c(8)), ex.bvult(c(32)), ex.bvugt(c(0))])),
                n.bvugt(c(0)).implies(ex.eq(c(4))),
            ];
            let memo = &mut HashMap::new();
            let hubs: HashSet<String> = ThreadVars::new(1).index_names().collect();
            let s = slice(&parts, &[Dynamic::from_ast(&offset)], &hubs, memo).expect("drops conjuncts");
            let text = s.formula.to_string();
            assert!(text.contains("it5_s") && text.contains("param_n"), "{text}");
            assert!(!text.contains("ex9_s"), "{text}");
            // 2 of 5 conjuncts kept: small enough for a call of its own.
            assert!(s.small);
        });
    }
}

#[cfg(test)]
mod radix_tests {
    use super::*;
    use z3::Solver;

    /// The lemmas about offsets `y * w + c` (signed and unsigned products, one and two levels
    /// of digits) are valid bit-vector formulas: Z3 finds no assignment of 8-bit unknowns
    /// that falsifies one. A lemma that was not valid could make a racy query unsatisfiable.
    #[test]
    fn stride_lemmas_are_valid() {
        // The closed form of `v += step` as the walk builds it, scaled down (a 4-bit variable,
        // a 4-bit iteration counter, the exact sum in 10 bits) so that the check is quick.
        crate::smt::fresh_context(|| {
            for (var_signed, step_signed, sub) in [(true, false, false), (false, false, false), (true, true, true)] {
                let (w, rw, wide) = (4, 4, 10);
                let ext = |x: &BV, s: bool| if s { x.sign_ext(wide - w) } else { x.zero_ext(wide - w) };
                let stride = |tag: &str| {
                    let init = BV::new_const(format!("init{tag}"), w);
                    let step = BV::new_const("step", w);
                    let r = BV::new_const(format!("r{tag}"), rw);
                    let delta = r.bvmul(&step);
                    let val = if sub { init.bvsub(&delta) } else { init.bvadd(&delta) };
                    let d = r.zero_ext(wide - rw).bvmul(ext(&step, step_signed));
                    let exact = if sub {
                        ext(&init, var_signed).bvsub(&d)
                    } else {
                        ext(&init, var_signed).bvadd(&d)
                    };
                    let (lo, hi) = if var_signed {
                        (crate::smt::numeral_i(-8, wide), crate::smt::numeral_i(8, wide))
                    } else {
                        (crate::smt::numeral_i(0, wide), numeral(16, wide))
                    };
                    let step_ext = if sub {
                        ext(&step, step_signed).bvneg()
                    } else {
                        ext(&step, step_signed)
                    };
                    symex::Stride {
                        lp: Label(0),
                        var: VarId(0),
                        val,
                        count: r,
                        init: ext(&init, var_signed),
                        step: step_ext,
                        fits: Bool::and(&[exact.bvsge(&lo), exact.bvslt(&hi)]),
                    }
                };
                let lemma = stride_lemma(&stride("1"), &stride("2"));
                let s = Solver::new();
                s.assert(lemma.not());
                assert_eq!(s.check(), SatResult::Unsat, "valid: {lemma}");
            }
        });
    }

    #[test]
    fn radix_lemmas_are_valid() {
        crate::smt::fresh_context(|| {
            for signed in [true, false] {
                let bv = |n: &str| BV::new_const(format!("{n}_{signed}"), 8);
                let (z1, z2, h, y1, y2, w, c1, c2) = (
                    bv("z1"),
                    bv("z2"),
                    bv("h"),
                    bv("y1"),
                    bv("y2"),
                    bv("w"),
                    bv("c1"),
                    bv("c2"),
                );
                let mut walk = Walk::default();
                let mut product = |x: &BV, y: &BV| {
                    let p = x.bvmul(y);
                    walk.products.insert(
                        p.clone(),
                        Product {
                            x: x.clone(),
                            y: y.clone(),
                            signed,
                        },
                    );
                    p
                };
                // Two levels: ((z * h + y) * w + c).
                let r1 = product(&z1, &h).bvadd(&y1);
                let r2 = product(&z2, &h).bvadd(&y2);
                let t1 = product(&r1, &w).bvadd(&c1);
                let t2 = product(&r2, &w).bvadd(&c2);
                let mut lemmas = Vec::new();
                radix_lemmas([&walk, &Walk::default()], &t1, &t2, 3, &mut lemmas);
                assert_eq!(lemmas.len(), 2, "one lemma per level (signed {signed})");
                for l in &lemmas {
                    let s = Solver::new();
                    s.assert(l.not());
                    assert_eq!(s.check(), SatResult::Unsat, "valid (signed {signed}): {l}");
                }
            }
        });
    }
}
