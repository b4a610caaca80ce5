//! Models of conflict queries found by evaluation before the solver is asked.
//!
//! A racy kernel's satisfiable queries are most of what a first check of it costs (5–30 ms each
//! in Z3), yet their models are usually small: two nearby threads, a loop counter of 1, a
//! block size of 64. A short local search over such values, each candidate assignment
//! evaluated on the compiled query ([`crate::bv_eval`]), finds most of them in well under a
//! millisecond. An assignment under which every conjunct evaluates to true is a model of the
//! query, so a found one is exact; the search proves nothing, and a query it does not satisfy
//! goes to the solver as before.

use crate::bv_eval::{Program, Relation, Var};
use z3::ast::{Ast, Bool, Dynamic, BV};

/// Values of constants in earlier models, by name.
pub(crate) type Hints = std::collections::HashMap<String, u128>;

/// Records the values of `g`'s constants as hints for later searches.
pub(crate) fn remember(g: &Guess, hints: &mut Hints) {
    for (v, x) in g.vars.iter().zip(&g.values) {
        hints.insert(v.name.clone(), *x);
    }
}

/// Records the values a solver's model `m` gives the constants of `conjuncts` as hints.
pub(crate) fn remember_model(conjuncts: &[Bool], m: &z3::Model, hints: &mut Hints) {
    let Some(p) = Program::compile_all(&flatten(conjuncts)) else {
        return;
    };
    for v in p.vars() {
        let x = if v.width == 0 {
            m.eval(&Bool::new_const(v.name.as_str()), true)
                .and_then(|b| b.as_bool())
                .map(u128::from)
        } else {
            m.eval(&BV::new_const(v.name.as_str(), v.width), true)
                .and_then(|b| b.as_u64())
                .map(u128::from)
        };
        if let Some(x) = x {
            hints.insert(v.name.clone(), x);
        }
    }
}

/// An assignment of a query's constants that satisfies it.
pub(crate) struct Guess {
    vars: Vec<Var>,
    values: Vec<u128>,
}

impl Guess {
    /// The value of `x` under the assignment (constants it does not assign are 0, as in a
    /// completed model); `None` when `x` cannot be evaluated.
    pub(crate) fn value(&self, x: &BV) -> Option<u64> {
        let p = Program::compile(&Dynamic::from_ast(x))?;
        let vals: Vec<u128> = p
            .vars()
            .iter()
            .map(|v| self.vars.iter().position(|w| w == v).map_or(0, |i| self.values[i]))
            .collect();
        Some(p.eval(&vals, &mut Vec::new()) as u64)
    }

    /// Whether the assignment gives the bit-vector constant `c` a value.
    pub(crate) fn assigns(&self, c: &BV) -> bool {
        let name = Dynamic::from_ast(c).safe_decl().map(|d| d.name());
        self.vars
            .iter()
            .any(|v| name.as_ref().is_ok_and(|n| *n == v.name) && v.width == c.get_size())
    }
}

/// Nodes one search may evaluate (a few nanoseconds each): about 0.2 ms. Most searches that
/// succeed on the realistic corpus kernels need under 35,000.
pub(crate) const NODE_BUDGET: usize = 40_000;

/// Looks for an assignment satisfying every one of `conjuncts` (the query's parts and the
/// geometry's constraints). `None`: none found (or the terms use an operator that is not
/// evaluated), which says nothing about the query.
///
/// `hints` are values of constants in earlier models of the same check's queries (a loop's
/// exit count, a block size that worked): the search starts from them.
#[cfg(test)]
pub(crate) fn search(conjuncts: &[Bool], hints: &Hints) -> Option<Guess> {
    search_within(conjuncts, hints, NODE_BUDGET)
}

/// [`search`] with at most `budget` node evaluations.
///
/// Where the search from the usual start misses, a second one starts the values that are not
/// thread coordinates (nor hinted) at 2 instead of 0: a condition on coordinates split from a
/// flat index (`(i / n0) % n1 == (i / (n0 * n1)) % n2`) is the same in every thread while each
/// divisor is 0, and no one change of a divisor makes it differ.
pub(crate) fn search_within(conjuncts: &[Bool], hints: &Hints, budget: usize) -> Option<Guess> {
    let roots: Vec<Dynamic> = flatten(conjuncts);
    let p = Program::compile_all(&roots)?;
    let run = |h: &Hints| Search::new(&p, roots.len(), h)?.run(budget);
    let values = run(hints).or_else(|| {
        let mut small = hints.clone();
        for v in p.vars().iter().filter(|v| v.width >= 8 && !is_coordinate(&v.name)) {
            small.entry(v.name.clone()).or_insert(2);
        }
        run(&small)
    })?;
    Some(Guess {
        vars: p.vars().to_vec(),
        values,
    })
}

/// Whether a constant's name is a thread's or the launch's coordinate.
fn is_coordinate(name: &str) -> bool {
    ["tid", "bid", "bdim", "gdim"].iter().any(|c| name.starts_with(c))
}

/// Whether a search finds a model of `conjuncts` (`false` says nothing).
pub(crate) fn satisfiable(conjuncts: &[Bool]) -> bool {
    search_within(conjuncts, &Hints::new(), NODE_BUDGET).is_some()
}

/// Conjuncts a worse change may break and still be repaired (see [`Search::step`]).
const REPAIRS: usize = 4;

/// Changes that leave the failing conjunct failing, tried besides those that satisfy it (see
/// [`Search::step`]).
const PLATEAU_MOVES: usize = 4;

/// A constant (its index) and a value to give it.
type Change = (usize, u128);

/// A change of one constant: how many more conjuncts hold after it, and which do.
struct Move {
    gain: i64,
    var: usize,
    value: u128,
    after: Vec<bool>,
}

/// The state of one local search: the current assignment and which conjuncts it fails.
struct Search<'p> {
    p: &'p Program,
    /// Per conjunct: its nodes (evaluation order) and constants.
    cones: Vec<(Vec<usize>, Vec<usize>)>,
    /// Per constant: the conjuncts that depend on it.
    users: Vec<Vec<usize>>,
    /// Per constant: the values to try, those that satisfy its own conjuncts first.
    pools: Vec<Vec<u128>>,
    cur: Vec<u128>,
    holds: Vec<bool>,
    scratch: Vec<u128>,
    spent: usize,
    rng: Rng,
}

impl<'p> Search<'p> {
    /// `None` when some conjunct depends on no constant and is false.
    fn new(p: &'p Program, n: usize, hints: &Hints) -> Option<Search<'p>> {
        let cones: Vec<(Vec<usize>, Vec<usize>)> = (0..n).map(|i| p.cone(i)).collect();
        let mut users = vec![Vec::new(); p.vars().len()];
        for (i, (_, vars)) in cones.iter().enumerate() {
            for &v in vars {
                users[v].push(i);
            }
        }
        let mut s = Search {
            p,
            cones,
            users,
            pools: p
                .vars()
                .iter()
                .map(|v| hints.get(&v.name).copied().into_iter().chain(pool(v)).collect())
                .collect(),
            cur: p
                .vars()
                .iter()
                .map(|v| hints.get(&v.name).copied().unwrap_or_else(|| start(v)))
                .collect(),
            holds: vec![false; n],
            scratch: vec![0; p.len()],
            spent: 0,
            rng: Rng(0x9e37_79b9_7f4a_7c15),
        };
        for v in 0..s.cur.len() {
            s.narrow(v);
        }
        for i in 0..n {
            s.holds[i] = s.eval(i, &s.cur.clone());
            if !s.holds[i] && s.cones[i].1.is_empty() {
                return None;
            }
        }
        Some(s)
    }

    /// Whether conjunct `i` holds under `vals`.
    fn eval(&mut self, i: usize, vals: &[u128]) -> bool {
        self.spent += self.cones[i].0.len();
        self.p.eval_cone(&self.cones[i].0, vals, &mut self.scratch) != 0
    }

    /// Puts first in constant `v`'s pool the values that satisfy every conjunct on `v` alone
    /// (a loop's exit count, a block size's range), and starts `v` at the first.
    fn narrow(&mut self, v: usize) {
        let own: Vec<usize> = self.users[v]
            .iter()
            .copied()
            .filter(|&i| self.cones[i].1 == [v])
            .collect();
        if own.is_empty() {
            return;
        }
        let mut vals = self.cur.clone();
        let mut extra = Vec::new();
        for &i in &own {
            if let Some(sides) = self.p.root_relation(i) {
                extra.extend(self.solve(i, sides, v));
            }
        }
        let pool = std::mem::take(&mut self.pools[v]);
        let (good, bad): (Vec<u128>, Vec<u128>) = extra.into_iter().chain(pool).partition(|&x| {
            vals[v] = x;
            own.iter().all(|&i| self.eval(i, &vals))
        });
        if let Some(&first) = good.first() {
            self.cur[v] = first;
        }
        let mut seen = std::collections::HashSet::new();
        self.pools[v] = good.into_iter().chain(bad).filter(|x| seen.insert(*x)).collect();
    }

    /// Runs until every conjunct holds (the assignment) or the budget is spent (`None`).
    fn run(mut self, budget: usize) -> Option<Vec<u128>> {
        loop {
            let failing: Vec<usize> = (0..self.holds.len()).filter(|&i| !self.holds[i]).collect();
            if failing.is_empty() {
                return Some(self.cur);
            }
            if self.spent > budget {
                return None;
            }
            let r = failing[self.rng.below(failing.len())];
            self.step(r);
        }
    }

    /// Changes one constant of the failing conjunct `r`. Of the changes that satisfy `r`, the
    /// one that makes the most conjuncts hold is taken when it is no worse than now; a few
    /// changes that leave `r` failing compete with it on equal terms (a plateau walk: some
    /// models need two constants changed together). A worse one is taken when a repair of the
    /// conjuncts it breaks, one change each, makes up for it (a thread moved into a branch
    /// wakes the facts about that branch's loops, which one more constant satisfies); failing
    /// that, a plateau change, or now and then the worse one anyway (to leave a dead end).
    fn step(&mut self, r: usize) {
        let (fixing, others) = self.options(r, None);
        let best = self.best_of(&fixing);
        let plateau = self.best_of(&others);
        if let Some(b) = best.as_ref().filter(|b| b.gain >= 0) {
            let m = match &plateau {
                Some(p) if p.gain > b.gain || (p.gain == b.gain && self.rng.below(2) == 0) => p,
                _ => b,
            };
            self.apply(m);
            return;
        }
        if best.as_ref().is_some_and(|b| self.repaired(b)) {
            return;
        }
        match (plateau.filter(|p| p.gain >= 0), best) {
            (Some(p), _) => self.apply(&p),
            (None, Some(b)) if self.rng.below(8) == 0 => self.apply(&b),
            _ => {}
        }
    }

    /// Makes the worse change `m` and repairs the conjuncts it breaks, each with one change of
    /// another constant; undoes it all unless as many conjuncts hold as before.
    fn repaired(&mut self, m: &Move) -> bool {
        let (cur, holds) = (self.cur.clone(), self.holds.clone());
        let failing = holds.iter().filter(|h| !**h).count();
        self.apply(m);
        let broken: Vec<usize> = self.users[m.var]
            .iter()
            .copied()
            .filter(|&i| holds[i] && !self.holds[i])
            .collect();
        for _ in 0..REPAIRS {
            let Some(&b) = broken.iter().find(|&&b| !self.holds[b]) else {
                break;
            };
            let (fixing, _) = self.options(b, Some(m.var));
            match self.best_of(&fixing).filter(|f| f.gain > 0) {
                Some(fix) => self.apply(&fix),
                None => break,
            }
        }
        if self.holds.iter().filter(|h| !**h).count() <= failing {
            return true;
        }
        self.cur = cur;
        self.holds = holds;
        false
    }

    /// The change of `options` that makes the most conjuncts hold (ties broken at random:
    /// reservoir sampling).
    fn best_of(&mut self, options: &[Change]) -> Option<Move> {
        let mut best: Option<Move> = None;
        let mut ties = 0;
        for &(v, x) in options {
            let m = self.scored(v, x);
            let better = match &best {
                None => true,
                Some(b) if m.gain > b.gain => {
                    ties = 0;
                    true
                }
                Some(b) if m.gain == b.gain => {
                    ties += 1;
                    self.rng.below(ties + 1) == 0
                }
                _ => false,
            };
            if better {
                best = Some(m);
            }
        }
        best
    }

    /// The changes of conjunct `r`'s constants (other than `fixed`) to try: those that make
    /// `r` hold (checked on `r` alone, which is cheap: a constant such as a thread index has
    /// dozens of conjuncts to re-evaluate), and a few of the others (all when none does).
    fn options(&mut self, r: usize, fixed: Option<usize>) -> (Vec<Change>, Vec<Change>) {
        let mut all = Vec::new();
        for v in self.cones[r].1.clone() {
            if Some(v) != fixed {
                all.extend(
                    self.candidates(r, v)
                        .into_iter()
                        .filter(|&x| x != self.cur[v])
                        .map(|x| (v, x)),
                );
            }
        }
        let mut vals = self.cur.clone();
        let (fixing, others): (Vec<Change>, Vec<Change>) = all.iter().partition(|&&(v, x)| {
            vals[v] = x;
            let holds = self.eval(r, &vals);
            vals[v] = self.cur[v];
            holds
        });
        if fixing.is_empty() {
            return (fixing, others);
        }
        let sample = (0..PLATEAU_MOVES.min(others.len()))
            .map(|_| others[self.rng.below(others.len())])
            .collect();
        (fixing, sample)
    }

    /// Constant `v` set to `x`: how many more conjuncts hold, and which.
    fn scored(&mut self, v: usize, x: u128) -> Move {
        let mut vals = self.cur.clone();
        vals[v] = x;
        let mut gain = 0i64;
        let mut after = Vec::with_capacity(self.users[v].len());
        for k in 0..self.users[v].len() {
            let i = self.users[v][k];
            let h = self.eval(i, &vals);
            gain += h as i64 - self.holds[i] as i64;
            after.push(h);
        }
        Move {
            gain,
            var: v,
            value: x,
            after,
        }
    }

    /// Makes the change `m`.
    fn apply(&mut self, m: &Move) {
        self.cur[m.var] = m.value;
        for (k, &i) in self.users[m.var].clone().iter().enumerate() {
            self.holds[i] = m.after[k];
        }
    }

    /// Values to try for constant `v` to satisfy conjunct `r`: those that solve it, a few
    /// from `v`'s pool (its best first), neighbours, and other constants' values.
    fn candidates(&mut self, r: usize, v: usize) -> Vec<u128> {
        let mut out = match self.p.root_relation(r) {
            Some(sides) => self.solve(r, sides, v),
            None => Vec::new(),
        };
        let w = self.p.vars()[v].width;
        let m = if w == 0 { 1 } else { crate::bv_eval::mask(w) };
        let pool = &self.pools[v];
        if self.cones[r].1.len() <= 2 {
            // Few constants: the conjunct may need one exact value of this one.
            out.extend(pool.iter());
        } else {
            out.extend(pool.iter().take(4));
            for _ in 0..3 {
                out.push(pool[self.rng.below(pool.len())]);
            }
        }
        if w > 0 {
            out.push(self.cur[v].wrapping_add(1) & m);
            out.push(self.cur[v].wrapping_sub(1) & m);
            let o = self.rng.below(self.cur.len());
            if self.p.vars()[o].width == w {
                out.push(self.cur[o]);
            }
        }
        out
    }

    /// Values of constant `v` that satisfy conjunct `r`'s comparison, if the difference of its
    /// two sides is linear in `v` near its current value (index arithmetic mostly is): the
    /// difference at `v` and `v + 1` gives the slope, and the nearest value that puts the
    /// difference in the range the comparison asks for is taken; for an equality also the
    /// solution modulo 2^w (an index that wraps). `tid1 + 256 * i1 == tid2 + 256 * i2` is
    /// solved in one step.
    fn solve(&mut self, r: usize, rel: Relation, v: usize) -> Vec<u128> {
        let vw = self.p.vars()[v].width;
        if vw == 0 || rel.width > 120 {
            return Vec::new();
        }
        let mut vals = self.cur.clone();
        let diff = |s: &mut Self, vals: &[u128]| {
            s.eval(r, vals);
            let (x, y) = (
                s.p.number(rel.a, rel.signed, &s.scratch),
                s.p.number(rel.b, rel.signed, &s.scratch),
            );
            x - y
        };
        let d0 = diff(self, &vals);
        vals[v] = (vals[v] + 1) & crate::bv_eval::mask(vw);
        let slope = diff(self, &vals) - d0;
        if slope == 0 {
            return Vec::new();
        }
        let mut steps: Vec<i128> = Vec::new();
        // The smallest step that puts `slope * t` above (or below) `need`.
        let toward = |bound: i128, up: bool| {
            let need = bound - d0;
            let t0 = need / slope;
            (t0 - 1..=t0 + 1)
                .filter(|t| if up { slope * t >= need } else { slope * t <= need })
                .min_by_key(|t| t.abs())
                .unwrap_or(t0)
        };
        match (rel.lo, rel.hi) {
            (Some(lo), Some(hi)) if lo == hi => {
                if (lo - d0) % slope == 0 {
                    steps.push((lo - d0) / slope);
                }
                steps.extend(self.modular(lo - d0, slope, rel.width));
            }
            (Some(lo), _) if d0 < lo => steps.push(toward(lo, true)),
            (_, Some(hi)) if d0 > hi => steps.push(toward(hi, false)),
            _ => {}
        }
        let m = crate::bv_eval::mask(vw);
        steps
            .into_iter()
            .map(|t| (self.cur[v] as i128).wrapping_add(t) as u128 & m)
            .collect()
    }

    /// Solutions `t` of `slope * t = need` modulo 2^w (as the smallest non-negative one).
    fn modular(&self, need: i128, slope: i128, w: u32) -> Option<i128> {
        let m = crate::bv_eval::mask(w);
        let (need, slope) = (need as u128 & m, slope as u128 & m);
        if slope == 0 {
            return None;
        }
        let shift = slope.trailing_zeros();
        if need & crate::bv_eval::mask(shift) != 0 {
            return None;
        }
        let t = (need >> shift).wrapping_mul(inverse(slope >> shift)) & crate::bv_eval::mask(w - shift);
        Some(t as i128)
    }
}

/// The conjuncts of `parts`, as finely split as they go (finer conjuncts guide the search).
fn flatten(parts: &[Bool]) -> Vec<Dynamic> {
    crate::smt::conjuncts(parts)
        .iter()
        .map(|c| Dynamic::from_ast(c))
        .collect()
}

/// The inverse of odd `x` modulo 2^128 (Newton's iteration: each step doubles the bits).
fn inverse(x: u128) -> u128 {
    let mut y = x;
    for _ in 0..7 {
        y = y.wrapping_mul(2u128.wrapping_sub(x.wrapping_mul(y)));
    }
    y
}

/// Values worth trying for a constant, by what its name says it is (most likely first).
fn pool(v: &Var) -> Vec<u128> {
    let n = v.name.as_str();
    let m = if v.width == 0 { 1 } else { crate::bv_eval::mask(v.width) };
    let vals: Vec<i64> = if v.width == 0 {
        vec![0, 1]
    } else if n.starts_with("tid") && n.ends_with("_x") {
        vec![
            0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255,
        ]
    } else if n.starts_with("tid") || n.starts_with("bid") {
        vec![0, 1, 2, 3]
    } else if n == "bdim_x" {
        vec![64, 32, 128, 256, 512, 1024, 16, 8, 4, 2, 1]
    } else if n.starts_with("bdim") {
        vec![1, 2, 4, 8, 16, 32]
    } else if n.starts_with("gdim") {
        vec![1, 2, 3, 4, 8, 64]
    } else {
        vec![
            0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 30, 31, 32, 33, 63, 64, 100, 128, 255, 256, 1024, -1, -2,
        ]
    };
    vals.into_iter().map(|x| x as u128 & m).collect()
}

/// The first assignment of a constant: its likeliest value, the second thread one apart.
fn start(v: &Var) -> u128 {
    match v.name.as_str() {
        "tid2_x" => 1,
        _ => pool(v)[0],
    }
}

/// A small deterministic generator (xorshift): the search, and so which witness a query gets,
/// is the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smt::numeral;

    /// Whether `f` holds under `g`, by Z3's own simplifier after substituting `g`'s values.
    fn holds_in_z3(f: &Bool, g: &Guess) -> bool {
        crate::bv_eval::substituted(&Dynamic::from_ast(f), &g.vars, &g.values)
            .as_bool()
            .and_then(|b| b.as_bool())
            .expect("a constant")
    }

    #[test]
    fn finds_two_threads_at_one_index_of_a_strided_loop() {
        // `s[tid + 256 * i]` in two threads of a block of 512, in two iterations.
        let t1 = BV::new_const("tid1_x", 32);
        let t2 = BV::new_const("tid2_x", 32);
        let i1 = BV::new_const("it_t1", 32);
        let i2 = BV::new_const("it_t2", 32);
        let n = numeral(256, 32);
        let parts = vec![
            t1.bvadd(i1.bvmul(&n)).eq(t2.bvadd(i2.bvmul(&n))),
            t1.eq(&t2).not(),
            t1.bvult(numeral(512, 32)),
            t2.bvult(numeral(512, 32)),
            i1.bvult(numeral(4, 32)),
            i2.bvult(numeral(4, 32)),
        ];
        let g = search(&parts, &Hints::new()).expect("a model");
        assert!(holds_in_z3(&Bool::and(&parts), &g));
    }

    #[test]
    fn finds_a_loop_exit_count() {
        // `for (s = 1; s < 32; s <<= 1)` exits after exactly 5 doublings.
        let e = BV::new_const("ex_s", 32);
        let pow = numeral(1, 32).bvshl(&e);
        let parts = vec![
            pow.bvslt(numeral(32, 32)).not(),
            numeral(1, 32).bvshl(e.bvsub(numeral(1, 32))).bvslt(numeral(32, 32)),
            e.bvult(numeral(32, 32)),
        ];
        let g = search(&parts, &Hints::new()).expect("a model");
        assert!(holds_in_z3(&Bool::and(&parts), &g));
        assert_eq!(g.value(&e), Some(5));
    }

    #[test]
    fn moves_a_thread_into_a_branch_and_repairs_the_facts_it_wakes() {
        // Thread 1 writes `s[lane]` in warp 0 after four `for (d = 1; d < 32; d <<= 1)` scans;
        // thread 2 reads `s[warp]`. An earlier model left thread 1 in warp 2: moving it into
        // warp 0 alone makes the facts about the loops' exit counts false, and only the exit
        // count 5 of each makes them true again. Facts about other values of thread 1 (its
        // loads' addresses) hold wherever it is, but each change of it must evaluate them.
        let t1 = BV::new_const("tid1_x", 32);
        let t2 = BV::new_const("tid2_x", 32);
        let in_warp0 = t1.bvashr(numeral(5, 32)).eq(numeral(0, 32));
        let one = numeral(1, 32);
        let mut parts = vec![
            in_warp0.clone(),
            t1.bvand(numeral(31, 32)).eq(t2.bvashr(numeral(5, 32))),
            t1.eq(&t2).not(),
            t1.bvult(numeral(256, 32)),
            t2.bvult(numeral(256, 32)),
        ];
        let exits: Vec<BV> = (0..4).map(|i| BV::new_const(format!("ex{i}_t1"), 32)).collect();
        for e in &exits {
            parts.push(in_warp0.implies(one.bvshl(e).bvslt(numeral(32, 32)).not()));
            parts.push(
                in_warp0.implies(
                    e.eq(numeral(0, 32))
                        .not()
                        .implies(one.bvshl(e.bvsub(&one)).bvslt(numeral(32, 32))),
                ),
            );
            parts.push(e.bvult(numeral(64, 32)));
        }
        for i in 0..40u64 {
            let addr = t1
                .bvmul(numeral(4, 32))
                .bvadd(numeral(i * 1024, 32))
                .bvurem(numeral(1 << 20, 32));
            parts.push(addr.bvult(numeral(1 << 20, 32)));
        }
        let mut hints: Hints = [("tid1_x", 65), ("tid2_x", 33)]
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        hints.extend((0..4).map(|i| (format!("ex{i}_t1"), 0)));
        let g = search(&parts, &hints).expect("a model");
        assert!(holds_in_z3(&Bool::and(&parts), &g));
        assert!(exits.iter().all(|e| g.value(e) == Some(5)));
    }

    #[test]
    fn an_unsatisfiable_query_gets_no_model() {
        let x = BV::new_const("x", 32);
        let parts = vec![x.bvult(numeral(3, 32)), x.bvugt(numeral(5, 32))];
        assert!(search(&parts, &Hints::new()).is_none());
        assert!(search(&[Bool::from_bool(false)], &Hints::new()).is_none());
    }

    /// A random formula over three 8-bit constants and a Boolean, of the operators the checkers
    /// build.
    fn random_formula(rng: &mut Rng, depth: u32) -> Bool {
        fn term(rng: &mut Rng, depth: u32) -> BV {
            let leaf = |rng: &mut Rng| match rng.below(4) {
                0 => BV::new_const("a", 8),
                1 => BV::new_const("b", 8),
                2 => BV::new_const("c", 8),
                _ => numeral(rng.below(256) as u64, 8),
            };
            if depth == 0 {
                return leaf(rng);
            }
            let (x, y) = (term(rng, depth - 1), term(rng, depth - 1));
            match rng.below(12) {
                0 => x.bvadd(&y),
                1 => x.bvsub(&y),
                2 => x.bvmul(&y),
                3 => x.bvudiv(&y),
                4 => x.bvsrem(&y),
                5 => x.bvshl(&y),
                6 => x.bvashr(&y),
                7 => x.bvand(&y),
                8 => x.sign_ext(8).extract(11, 4),
                9 => x.bvult(&y).ite(&x, &y),
                10 => x.concat(&y).extract(7, 0),
                _ => leaf(rng),
            }
        }
        let (x, y) = (term(rng, depth), term(rng, depth));
        let atom = match rng.below(5) {
            0 => x.eq(&y),
            1 => x.bvslt(&y),
            2 => x.bvule(&y),
            3 => x.eq(&y).not(),
            _ => Bool::new_const("p").implies(x.bvsge(&y)),
        };
        if depth > 0 && rng.below(2) == 0 {
            Bool::and(&[atom, random_formula(rng, depth - 1)])
        } else {
            atom
        }
    }

    /// Every model the search returns is one: checked against Z3 on random formulas; and on
    /// the satisfiable ones it finds most.
    #[test]
    fn every_model_found_satisfies_the_formula() {
        let mut rng = Rng(12345);
        let (mut sat, mut found) = (0, 0);
        // A quarter of the formulas on the merge gate, all with AUTOSYNC_FULL_SWEEPS=1.
        let full = std::env::var("AUTOSYNC_FULL_SWEEPS").as_deref() == Ok("1");
        for _ in 0..if full { 300 } else { 75 } {
            let f = random_formula(&mut rng, 2);
            let s = z3::Solver::new();
            s.assert(&f);
            let z3_sat = s.check() == z3::SatResult::Sat;
            sat += z3_sat as u32;
            if let Some(g) = search(std::slice::from_ref(&f), &Hints::new()) {
                assert!(z3_sat, "a model of an unsatisfiable formula: {f}");
                assert!(holds_in_z3(&f, &g), "not a model of {f}");
                found += 1;
            }
        }
        assert!(found * 2 > sat, "found {found} of {sat} satisfiable formulas");
    }
}
