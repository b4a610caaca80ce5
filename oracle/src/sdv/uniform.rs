//! Uniformity analysis: which variables hold the same value in every thread of a block, and for
//! every label whether the predicate under which it executes is uniform across the block, only
//! within each warp, or neither.
//!
//! Variables and predicates are computed together to a fixpoint (a condition on a non-uniform
//! variable makes assignments under it non-uniform, which can make further conditions
//! non-uniform). A label whose predicate is syntactically thread-dependent is then checked with
//! Z3: if no two threads of one warp can disagree on it, it is warp-uniform.

use super::levels::{Level, Uniformity};
use super::symex;
use super::syntax::for_each_expr;
use super::threads::{geometry, geometry_constraints, warp_of, ThreadVars};
use crate::ir::*;
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use z3::ast::{Bool, Dynamic};
use z3::{SatResult, Solver};

/// Computes the uniformity of every variable and label of `k`.
///
/// Reads are uniform when every thread reads the same value (see
/// [`Uniformity::uniform_reads`]): a shared flag written by one thread before a barrier and read
/// by all after it, so that `if (done) break;` keeps a loop uniform. Which reads qualify depends
/// on which barriers align, which depends on which values are uniform: the set is the greatest
/// fixpoint, starting from every candidate read and dropping those some write reaches. That is
/// sound by induction over the lock-step execution: up to the first instant a read of the set
/// would give threads different values, every condition judged uniform was, so every barrier
/// judged aligned was, and the execution so far is a path of the graph the reads were checked
/// on — on which no write reaches the read, so its address held one value since the barrier.
pub fn uniformity(k: &Kernel) -> Uniformity {
    uniformity_with(k, true, None)
}

/// [`uniformity`] as it would be once every read that could give all threads the same value
/// does (a barrier between each such read and the writes that reach it): what synthesis may
/// aim for. Never a verdict: a placement built on it is verified with [`uniformity`].
pub fn uniformity_if_reads_settle(k: &Kernel) -> Uniformity {
    uniformity_with(k, false, None)
}

/// [`uniformity_if_reads_settle`] of `k`, given `k`'s [`uniformity`] (`known`): when no read
/// settles that has not already, the two are one analysis.
pub fn uniformity_if_reads_settle_given(k: &Kernel, known: &Uniformity) -> Uniformity {
    crate::smt::fresh_context(|| uniformity_with(k, false, Some(known)))
}

/// [`uniformity`] of `k`, given the uniformity `known` of a kernel with the same statements
/// but barriers, whose walks read the same counter arrays: the levels of its conditions are
/// reused when the variables, reads and steering variables are the same (a level is a
/// function of the walks, which a barrier statement does not change).
pub(crate) fn uniformity_given(k: &Kernel, known: &Uniformity) -> Uniformity {
    uniformity_with(k, true, Some(known))
}

fn uniformity_with(k: &Kernel, confirm: bool, known: Option<&Uniformity>) -> Uniformity {
    let mut reads = read_candidates(k);
    // A local read before any assignment holds an indeterminate value: not the same in every
    // thread.
    let uninit = super::syntax::read_before_assigned(k);
    let (nu, taint) = loop {
        let (nu, taint) = taint_fixpoint(k, &reads, &uninit);
        let next = if confirm {
            confirmed_reads(k, &nu, &taint, &reads)
        } else {
            // Only what the taint itself rules out: reads at addresses that differ by thread.
            reads
                .iter()
                .filter(|r| read_offset(k, r).is_some_and(|o| !nu_expr(o, &nu)))
                .copied()
                .collect()
        };
        if next == reads {
            break (nu, taint);
        }
        reads = next;
    };
    // A predicate built from conditions that each agree across the lanes of a warp agrees
    // across the lanes of a warp: one solver query per non-uniform condition suffices.
    let mut sources: Vec<Label> = taint
        .before
        .values()
        .chain(taint.after.values())
        .flatten()
        .copied()
        .collect();
    sources.sort();
    sources.dedup();
    let mut u = Uniformity {
        nu_vars: nu,
        uniform_reads: reads,
        steering: steering_vars(k),
        ..Default::default()
    };
    let mut cond_level = known.map(|x| reusable_levels(x, &u, &mut sources)).unwrap_or_default();
    // Several conditions are checked on a fixed number of lanes, each with its own Z3 context,
    // on rayon's pool (the answers do not depend on the core count; a lane walks the kernel
    // again, which only pays for several conditions).
    let levels_of = |mine: &[Label]| -> Vec<(Label, Level)> {
        let warp = WarpCheck::new(k, &u);
        mine.iter().map(|&src| (src, warp.level(src))).collect()
    };
    match sources.len() {
        0 => {}
        1..=3 => cond_level.extend(levels_of(&sources)),
        _ => {
            let shares = lane_shares(k, &sources, crate::smt::LANES);
            let levels: Vec<Vec<(Label, Level)>> = shares
                .par_iter()
                .map(|mine| crate::smt::fresh_context(|| levels_of(mine)))
                .collect();
            cond_level.extend(levels.into_iter().flatten());
        }
    }
    u.conditions = cond_level.clone();
    let classify = |srcs: &Srcs| {
        let level = srcs
            .iter()
            .map(|s| cond_level.get(s).copied().unwrap_or(Level::Thread))
            .max()
            .unwrap_or(Level::Block);
        (level, srcs.last().copied())
    };
    for (&l, srcs) in &taint.before {
        u.before.insert(l, classify(srcs));
    }
    for (&l, srcs) in &taint.after {
        u.after.insert(l, classify(srcs));
    }
    u
}

/// The levels `known` has of conditions among `sources` (removed from it), when `known` was
/// found with the same non-uniform variables, uniform reads and steering variables as `u`.
fn reusable_levels(known: &Uniformity, u: &Uniformity, sources: &mut Vec<Label>) -> HashMap<Label, Level> {
    let mut out = HashMap::new();
    if known.nu_vars != u.nu_vars || known.uniform_reads != u.uniform_reads || known.steering != u.steering {
        return out;
    }
    sources.retain(|s| match known.conditions.get(s) {
        Some(&level) => {
            out.insert(*s, level);
            false
        }
        None => true,
    });
    out
}

/// `sources` shared out over `lanes` lanes, longest first, each to the lane with the least
/// work so far. A condition inside loops costs more (its facts carry the loops' closed forms,
/// `lane >= d` under `d <<= 1` takes several times `lane == 31`): the estimate is 1 plus 3 per
/// enclosing loop. Depends only on the kernel.
fn lane_shares(k: &Kernel, sources: &[Label], lanes: usize) -> Vec<Vec<Label>> {
    let tree = crate::tree::LabelTree::new(k);
    let mut by_cost: Vec<(usize, Label)> = sources
        .iter()
        .map(|&l| (1 + 3 * tree.get(l).loop_owners().len(), l))
        .collect();
    by_cost.sort_by_key(|&(cost, l)| (std::cmp::Reverse(cost), l));
    let mut shares = vec![(0, Vec::new()); lanes.max(1)];
    for (cost, l) in by_cost {
        let lane = (0..shares.len())
            .min_by_key(|&i| shares[i].0)
            .expect("at least one lane");
        shares[lane].0 += cost;
        shares[lane].1.push(l);
    }
    shares.into_iter().map(|(_, mine)| mine).collect()
}

/// The variables an address, condition, assumption or barrier operand can depend on: those
/// expressions' variables, closed backwards over assignments.
fn steering_vars(k: &Kernel) -> HashSet<VarId> {
    let mut out: HashSet<VarId> = HashSet::new();
    let mut assigns: Vec<(VarId, &Expr)> = Vec::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| match &s.kind {
        StmtKind::Basic(ops) => {
            for op in ops {
                match op {
                    Op::Assign(v, e) => assigns.push((*v, e)),
                    Op::Read(_, a) | Op::Atomic(_, a, _) | Op::Write(a, _) => a.offset.for_each_var(&mut |v| {
                        out.insert(v);
                    }),
                    // Async-pipeline ops stop the SDV checker before this stage (`sdv::check`).
                    Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::Wgmma(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {}
                }
            }
        }
        _ => for_each_expr(s, &mut |e: &Expr| {
            e.for_each_var(&mut |v| {
                out.insert(v);
            })
        }),
    });
    loop {
        let before = out.len();
        for (v, e) in &assigns {
            if out.contains(v) {
                e.for_each_var(&mut |w| {
                    out.insert(w);
                });
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// Whether `e` may differ between threads.
pub(crate) fn nu_expr(e: &Expr, nu: &HashSet<VarId>) -> bool {
    e.may_differ(&|v| nu.contains(&v))
}

/// Per label, the non-uniform conditions of its predicate, before and after it.
struct Preds {
    before: HashMap<Label, Srcs>,
    after: HashMap<Label, Srcs>,
}

/// The variable taint and the predicates' non-uniform conditions, to a fixpoint, with the
/// reads of `reads` giving uniform values (at uniform addresses) and the variables of `uninit`
/// (read before assigned) non-uniform from the start.
fn taint_fixpoint(k: &Kernel, reads: &HashSet<(Label, usize)>, uninit: &HashSet<VarId>) -> (HashSet<VarId>, Preds) {
    let mut nu = uninit.clone();
    loop {
        let t = Taint::run(k, &nu);
        let mut next = nu.clone();
        update_vars(&k.body, &t.before, reads, &mut next);
        if next == nu {
            let preds = Preds {
                before: t.before,
                after: t.after,
            };
            return (nu, preds);
        }
        nu = next;
    }
}

/// Grid barriers (`grid.sync()`) whose predicate may differ between blocks, each with the
/// innermost such condition. A syntactic taint with the thread and block indexes, votes,
/// unknowns and every value read from memory as sources: a grid barrier some blocks skip
/// hangs the grid even where every block agrees within itself.
pub(crate) fn grid_divergent(k: &Kernel) -> Vec<(Label, Label)> {
    // Every check (each candidate of synthesis too) comes here: most kernels have no grid
    // barrier, and then the taint's fixpoint is not worth running.
    let mut has_grid = false;
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        has_grid |= matches!(s.kind, StmtKind::Barrier(_, BarrierSyntax::GridSync));
    });
    if !has_grid {
        return Vec::new();
    }
    let mut nu: HashSet<VarId> = super::syntax::read_before_assigned(k);
    loop {
        let t = Taint::run_at(k, &nu, true);
        let mut next = nu.clone();
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            let divergent = t.before.get(&s.label).is_some_and(|x| !x.is_empty());
            let StmtKind::Basic(ops) = &s.kind else { return };
            for op in ops {
                match op {
                    Op::Assign(v, e) if divergent || e.may_differ_between_blocks(&|x| nu.contains(&x)) => {
                        next.insert(*v);
                    }
                    Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => {
                        next.insert(*v);
                    }
                    _ => {}
                }
            }
        });
        if next != nu {
            nu = next;
            continue;
        }
        let mut out = Vec::new();
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            if matches!(s.kind, StmtKind::Barrier(_, BarrierSyntax::GridSync)) {
                if let Some(&cond) = t.before.get(&s.label).and_then(|x| x.last()) {
                    out.push((s.label, cond));
                }
            }
        });
        return out;
    }
}

/// The offset of read `r` (statement, operation).
fn read_offset<'k>(k: &'k Kernel, r: &(Label, usize)) -> Option<&'k Expr> {
    let mut out = None;
    crate::tree::for_each_stmt(&k.body, &mut |s: &'k Stmt| {
        if s.label == r.0 {
            if let StmtKind::Basic(ops) = &s.kind {
                if let Some(Op::Read(_, a)) = ops.get(r.1) {
                    out = Some(&a.offset);
                }
            }
        }
    });
    out
}

/// Every read that may give all threads the same value: into a variable, from a shared array, or
/// from a global array no statement of the kernel writes.
fn read_candidates(k: &Kernel) -> HashSet<(Label, usize)> {
    let mut written = HashSet::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Op::Write(a, _) | Op::Atomic(_, a, _) = op {
                    written.insert(a.array);
                }
            }
        }
    });
    let mut out = HashSet::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for (i, op) in ops.iter().enumerate() {
                if let Op::Read(Some(_), a) = op {
                    let ok = match k.arrays.get(a.array.0 as usize).map(|x| x.space) {
                        Some(Space::Shared) => true,
                        Some(Space::Global) => !written.contains(&a.array),
                        _ => false,
                    };
                    if ok {
                        out.insert((s.label, i));
                    }
                }
            }
        }
    });
    out
}

/// The candidate reads that stay uniform given the current taint: a uniform address, and (for
/// shared arrays) no write to the array that reaches the read on the lock-step CFG without a
/// barrier (its own thread's earlier write in the statement included). The CFG is built with
/// the syntactic levels only (a condition with any non-uniform source is not block-uniform):
/// more paths than the final analysis has, which can only drop reads.
fn confirmed_reads(
    k: &Kernel,
    nu: &HashSet<VarId>,
    taint: &Preds,
    reads: &HashSet<(Label, usize)>,
) -> HashSet<(Label, usize)> {
    let mut ops_of: HashMap<Label, &[Op]> = HashMap::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            ops_of.insert(s.label, ops);
        }
    });
    let access = |(l, i): &(Label, usize)| match ops_of.get(l).and_then(|ops| ops.get(*i)) {
        Some(Op::Read(_, a)) => Some(a),
        _ => None,
    };
    let mut keep: HashSet<(Label, usize)> = reads
        .iter()
        .filter(|r| access(r).is_some_and(|a| !nu_expr(&a.offset, nu)))
        .copied()
        .collect();
    let shared_arrays: HashSet<ArrayId> = keep
        .iter()
        .filter_map(&access)
        .filter(|a| {
            k.arrays
                .get(a.array.0 as usize)
                .is_some_and(|x| x.space == Space::Shared)
        })
        .map(|a| a.array)
        .collect();
    if shared_arrays.is_empty() {
        return keep;
    }
    let level = |srcs: &Srcs| (if srcs.is_empty() { Level::Block } else { Level::Thread }, None);
    let prelim = Uniformity {
        nu_vars: nu.clone(),
        uniform_reads: keep.clone(),
        // Only the CFG is built from this one, but a walk of it must not take every variable
        // for one that steers nothing.
        steering: steering_vars(k),
        before: taint.before.iter().map(|(l, s)| (*l, level(s))).collect(),
        after: taint.after.iter().map(|(l, s)| (*l, level(s))).collect(),
        conditions: HashMap::new(),
    };
    let cfg = super::intervals::Cfg::build(k, &prelim, &Default::default());
    let tree = crate::tree::LabelTree::new(k);
    let mut writers: Vec<(Label, usize, ArrayId)> = Vec::new();
    for (l, ops) in &ops_of {
        for (i, op) in ops.iter().enumerate() {
            if let Op::Write(a, _) | Op::Atomic(_, a, _) = op {
                if shared_arrays.contains(&a.array) {
                    writers.push((*l, i, a.array));
                }
            }
        }
    }
    writers.sort();
    writers.dedup_by_key(|w| (w.0, w.2));
    for (w, wi, array) in writers {
        let reached = cfg.reach(w, &tree.get(w).loop_owners(), super::intervals::Blocking::BlockOnly);
        keep.retain(|r| {
            let a = access(r).expect("kept reads are reads");
            a.array != array || !(reached.contains_key(&r.0) || (r.0 == w && wi < r.1))
        });
    }
    keep
}

fn update_vars(b: &Block, before: &HashMap<Label, Srcs>, reads: &HashSet<(Label, usize)>, nu: &mut HashSet<VarId>) {
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            let divergent = before.get(&s.label).is_some_and(|x| !x.is_empty());
            for (i, op) in ops.iter().enumerate() {
                match op {
                    Op::Assign(v, e) if divergent || nu_expr(e, nu) => {
                        nu.insert(*v);
                    }
                    Op::Read(Some(v), a) if divergent || !reads.contains(&(s.label, i)) || nu_expr(&a.offset, nu) => {
                        nu.insert(*v);
                    }
                    Op::Atomic(Some(v), _, _) => {
                        nu.insert(*v);
                    }
                    _ => {}
                }
            }
        }
    });
}

/// The non-uniform conditions a predicate depends on (innermost last; empty: uniform).
type Srcs = Vec<Label>;

fn join(a: &Srcs, b: &Srcs) -> Srcs {
    let mut out = a.clone();
    for l in b {
        if !out.contains(l) {
            out.push(*l);
        }
    }
    out
}

fn with(a: &Srcs, l: Label) -> Srcs {
    join(a, &vec![l])
}

/// The syntactic pass: for each label, the non-uniform conditions its predicate depends on.
struct Taint<'a> {
    nu: &'a HashSet<VarId>,
    /// Whether "non-uniform" means "may differ between blocks" (grid barriers) rather than
    /// "between threads of a block".
    grid: bool,
    before: HashMap<Label, Srcs>,
    after: HashMap<Label, Srcs>,
    /// Conditions of `return`s under non-uniform predicates passed so far: everything later
    /// depends on them.
    ret: Srcs,
    /// Conditions of `break`s under non-uniform predicates in the current loop.
    brk: Srcs,
}

impl<'a> Taint<'a> {
    fn run(k: &Kernel, nu: &'a HashSet<VarId>) -> Taint<'a> {
        Taint::run_at(k, nu, false)
    }

    fn run_at(k: &Kernel, nu: &'a HashSet<VarId>, grid: bool) -> Taint<'a> {
        let mut t = Taint {
            nu,
            grid,
            before: HashMap::new(),
            after: HashMap::new(),
            ret: Vec::new(),
            brk: Vec::new(),
        };
        t.block(&k.body, &Vec::new());
        t
    }

    fn differs(&self, e: &Expr) -> bool {
        if self.grid {
            e.may_differ_between_blocks(&|v| self.nu.contains(&v))
        } else {
            nu_expr(e, self.nu)
        }
    }

    fn eff(&self, cur: &Srcs) -> Srcs {
        join(&self.ret, cur)
    }

    /// Walks a block; returns the conditions of non-uniform jumps that leave it (the code after
    /// it in the same iteration runs under a predicate depending on them).
    fn block(&mut self, b: &Block, cur: &Srcs) -> Srcs {
        self.before.insert(b.label, self.eff(cur));
        let mut c = cur.clone();
        let mut esc = Vec::new();
        for s in &b.stmts {
            let j = self.stmt(s, &c);
            c = join(&c, &j);
            esc = join(&esc, &j);
        }
        esc
    }

    fn stmt(&mut self, s: &Stmt, cur: &Srcs) -> Srcs {
        let cur = self.eff(cur);
        self.before.insert(s.label, cur.clone());
        let esc = match &s.kind {
            StmtKind::Basic(_) | StmtKind::Barrier(..) | StmtKind::Assume(_) => Vec::new(),
            StmtKind::Break => {
                self.brk = join(&self.brk, &cur);
                cur.clone()
            }
            StmtKind::Continue => cur.clone(),
            StmtKind::Return { .. } => {
                self.ret = join(&self.ret, &cur);
                cur.clone()
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let inner = if self.differs(cond) {
                    with(&cur, s.label)
                } else {
                    cur.clone()
                };
                let e1 = self.block(then_blk, &inner);
                let e2 = self.block(else_blk, &inner);
                join(&e1, &e2)
            }
            StmtKind::Loop(lp) => {
                let inner = if self.differs(&lp.cond) {
                    with(&cur, s.label)
                } else {
                    cur.clone()
                };
                let saved = std::mem::take(&mut self.brk);
                let ret0 = self.ret.clone();
                self.loop_pass(lp, &inner);
                // A non-uniform break or return disables threads for all later iterations:
                // the whole loop runs under a predicate depending on it.
                let cause = join(&self.brk, &self.ret[ret0.len()..].to_vec());
                if !cause.is_empty() {
                    self.loop_pass(lp, &join(&inner, &cause));
                }
                self.brk = saved;
                Vec::new()
            }
        };
        self.after.insert(s.label, self.eff(&join(&cur, &esc)));
        esc
    }

    fn loop_pass(&mut self, lp: &Loop, inner: &Srcs) {
        for h in &lp.header {
            self.stmt(h, inner);
        }
        self.block(&lp.body, inner);
        for h in &lp.step {
            self.stmt(h, inner);
        }
    }
}

/// Decides warp-uniformity of control predicates with two threads of one warp.
struct WarpCheck {
    solver: Solver,
    /// The geometry constraints asserted on `solver` (a guessed disagreement satisfies them).
    geometry_facts: Vec<Bool>,
    w1: symex::Walk,
    w2: symex::Walk,
    /// The same walks with every kernel parameter symbolic: block-uniformity must not rest on
    /// parameter values given for this run (a barrier placed under `x < width` because width
    /// happens to be a multiple of the tile would diverge for other widths). `None` when the
    /// run gives no parameter a value: they are `w1` and `w2`.
    any: Option<(symex::Walk, symex::Walk)>,
    /// The two threads are in one warp.
    same_warp: Bool,
    /// The thread and block index names (see [`super::query::slice`]).
    hubs: HashSet<String>,
    /// Constants per term, for slicing.
    constants: RefCell<HashMap<Dynamic, Rc<HashSet<String>>>>,
}

impl WarpCheck {
    fn new(k: &Kernel, unif: &Uniformity) -> WarpCheck {
        let geom = geometry(k);
        let t1 = ThreadVars::new(1);
        let t2 = ThreadVars::new(2);
        // Both threads in the same iteration of every loop.
        let mut all_loops = HashSet::new();
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            if matches!(s.kind, StmtKind::Loop(_)) {
                all_loops.insert(s.label);
            }
        });
        let w1 = symex::walk(k, unif, &geom, &t1, &all_loops, symex::Detail::Conditions);
        let w2 = symex::walk(k, unif, &geom, &t2, &all_loops, symex::Detail::Conditions);
        let any = (!k.launch.params.is_empty()).then(|| {
            let none = Default::default();
            let walk = |t| symex::walk_with_params(k, &none, unif, &geom, t, &all_loops, symex::Detail::Conditions);
            (walk(&t1), walk(&t2))
        });
        let solver = crate::smt::query_solver(2000);
        let geometry_facts = geometry_constraints(k, &geom, &[&t1, &t2]);
        for c in &geometry_facts {
            solver.assert(c);
        }
        let w1_ = warp_of(&t1, &geom);
        let w2_ = warp_of(&t2, &geom);
        let same_warp = w1_.eq(&w2_);
        let hubs = t1.index_names().chain(t2.index_names()).collect();
        WarpCheck {
            solver,
            geometry_facts,
            w1,
            w2,
            any,
            same_warp,
            hubs,
            constants: RefCell::new(HashMap::new()),
        }
    }

    /// Whether the two threads can disagree on a condition (`c1` in thread 1, `c2` in thread 2)
    /// under `parts`: the formula asked, the slice of `parts` connected to the condition when
    /// there is one. The slice drops conjuncts, so its `Unsat` is exact, and its `Sat` may claim
    /// a disagreement that cannot happen: a less uniform level than the truth, which assumes
    /// less (unanswered queries are taken the same way).
    fn disagreement(&self, mut parts: Vec<Bool>, c1: &Bool, c2: &Bool) -> Vec<Bool> {
        parts.push(c1.xor(c2));
        let roots = [Dynamic::from_ast(c1), Dynamic::from_ast(c2)];
        let sliced = super::query::slice(&parts, &roots, &self.hubs, &mut self.constants.borrow_mut());
        sliced.map_or(parts, |s| vec![s.formula])
    }

    /// Whether two threads that disagree on `formula` (see [`WarpCheck::disagreement`]) are
    /// found by evaluation, without the solver (most conditions that depend on the thread).
    fn found_by_evaluation(&self, formula: &[Bool]) -> bool {
        let mut all = self.geometry_facts.clone();
        all.extend(formula.iter().cloned());
        super::guess::satisfiable(&all)
    }

    /// The solver's answer on `formula`.
    fn solve(&self, formula: &[Bool]) -> SatResult {
        self.solver.push();
        formula.iter().for_each(|p| self.solver.assert(p));
        let r = self.solver.check();
        self.solver.pop(1);
        r
    }

    /// [`Level::Block`] when no two threads of the block that reach condition `src` can evaluate
    /// it differently (e.g. `threadIdx.x < 8` with blockDim.x = 8), [`Level::Warp`] when no two
    /// threads of one warp can, [`Level::Thread`] otherwise (and when the solver gives up).
    fn level(&self, src: Label) -> Level {
        let (Some(c1), Some(c2)) = (self.w1.conds.get(&src), self.w2.conds.get(&src)) else {
            return Level::Thread;
        };
        let parts = |p1: &symex::PointTerms, p2: &symex::PointTerms| {
            vec![p1.ctrl.clone(), p1.facts.clone(), p2.ctrl.clone(), p2.facts.clone()]
        };
        // Two lanes of one warp that disagree (with this run's parameters) are two threads of
        // the block that disagree for some parameters: most conditions (`tid < n`) are settled
        // by two such lanes found by evaluation.
        let mut in_warp = parts(&c1.0, &c2.0);
        in_warp.push(self.same_warp.clone());
        let in_warp = self.disagreement(in_warp, &c1.1, &c2.1);
        if self.found_by_evaluation(&in_warp) {
            return Level::Thread;
        }
        // A condition no two threads of the block disagree on (for any parameters) is
        // block-uniform, and then no two lanes of a warp disagree either: that one proof
        // settles it (a loop's exit test that every thread passes together).
        let (w1_any, w2_any) = self.any.as_ref().map_or((&self.w1, &self.w2), |(a, b)| (a, b));
        if let (Some(a1), Some(a2)) = (w1_any.conds.get(&src), w2_any.conds.get(&src)) {
            let any = self.disagreement(parts(&a1.0, &a2.0), &a1.1, &a2.1);
            if !self.found_by_evaluation(&any) && self.solve(&any) == SatResult::Unsat {
                return Level::Block;
            }
        }
        match self.solve(&in_warp) {
            SatResult::Unsat => Level::Warp,
            _ => Level::Thread,
        }
    }
}
