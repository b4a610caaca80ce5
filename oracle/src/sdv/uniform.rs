//! Uniformity analysis: which variables hold the same value in every thread of a block, and for
//! every label whether the predicate under which it executes is uniform across the block, only
//! within each warp, or neither.
//!
//! Variables and predicates are computed together to a fixpoint (a condition on a non-uniform
//! variable makes assignments under it non-uniform, which can make further conditions
//! non-uniform). A label whose predicate is syntactically thread-dependent is then checked with
//! Z3: if no two threads of one warp can disagree on it, it is warp-uniform.

use super::symex::{self, PointTerms, ThreadVars};
use crate::ir::*;
use crate::tree::Position;
use std::collections::{HashMap, HashSet};
use z3::ast::Bool;
use z3::{SatResult, Solver};

/// How uniform the predicate of a label is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The same for all threads of the block.
    Block,
    /// The same for all lanes of each warp, but not across warps.
    Warp,
    /// May differ between lanes of one warp.
    Thread,
}

/// The result of the uniformity analysis of one kernel.
#[derive(Clone, Debug, Default)]
pub struct Uniformity {
    nu_vars: HashSet<VarId>,
    before: HashMap<Label, (Level, Option<Label>)>,
    after: HashMap<Label, (Level, Option<Label>)>,
}

impl Uniformity {
    /// Level of the predicate under which label `l` (statement or block start) executes.
    /// Unknown labels are reported as [`Level::Thread`].
    pub fn level(&self, l: Label) -> Level {
        self.before.get(&l).map_or(Level::Thread, |x| x.0)
    }
    /// Level of the predicate right after statement `l` (differs from [`Uniformity::level`] when
    /// `l` contains a `break`/`continue`/`return` under a non-uniform condition).
    pub fn level_after(&self, l: Label) -> Level {
        self.after
            .get(&l)
            .or_else(|| self.before.get(&l))
            .map_or(Level::Thread, |x| x.0)
    }
    /// Level of a barrier inserted at `pos`.
    pub fn position_level(&self, pos: Position) -> Level {
        match pos {
            Position::BlockStart(b) => self.level(b),
            Position::After(l) => self.level_after(l),
        }
    }
    /// The innermost statement whose non-uniform condition makes `l`'s predicate non-uniform.
    pub fn cause(&self, l: Label) -> Option<Label> {
        self.before.get(&l).and_then(|x| x.1)
    }
    /// Whether variable `v` holds the same value in all threads of a block.
    pub fn is_uniform_var(&self, v: VarId) -> bool {
        !self.nu_vars.contains(&v)
    }
    /// The non-uniform variables.
    pub(crate) fn nu_vars(&self) -> &HashSet<VarId> {
        &self.nu_vars
    }
}

/// Computes the uniformity of every variable and label of `k`.
pub fn uniformity(k: &Kernel) -> Uniformity {
    let mut nu: HashSet<VarId> = HashSet::new();
    let taint = loop {
        let t = Taint::run(k, &nu);
        let mut next = nu.clone();
        update_vars(&k.body, &t.before, &mut next);
        if next == nu {
            break t;
        }
        nu = next;
    };
    let warp = WarpCheck::new(k, &nu);
    let mut memo: HashMap<(Bool, Bool, Bool, Bool), Level> = HashMap::new();
    let mut classify = |cause: Option<Label>, pt: Option<(&PointTerms, &PointTerms)>| {
        let level = match (cause, pt) {
            (None, _) => Level::Block,
            (Some(_), None) => Level::Thread,
            (Some(_), Some((p1, p2))) => {
                let key = (
                    p1.ctrl.clone(),
                    p1.facts.clone(),
                    p2.ctrl.clone(),
                    p2.facts.clone(),
                );
                *memo.entry(key).or_insert_with(|| warp.level(p1, p2))
            }
        };
        (level, cause)
    };
    let mut u = Uniformity {
        nu_vars: nu.clone(),
        ..Default::default()
    };
    for (&l, &cause) in &taint.before {
        let pt = warp.w1.before.get(&l).zip(warp.w2.before.get(&l));
        u.before.insert(l, classify(cause, pt));
    }
    for (&l, &cause) in &taint.after {
        let pt = warp.w1.after.get(&l).zip(warp.w2.after.get(&l));
        u.after.insert(l, classify(cause, pt));
    }
    u
}

/// Whether `e` may differ between threads.
pub(crate) fn nu_expr(e: &Expr, nu: &HashSet<VarId>) -> bool {
    let mut r = false;
    e.for_each_builtin(&mut |b| r |= matches!(b, Builtin::ThreadIdx(_)));
    e.for_each_var(&mut |v| r |= nu.contains(&v));
    r
}

fn update_vars(b: &Block, before: &HashMap<Label, Option<Label>>, nu: &mut HashSet<VarId>) {
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            let divergent = before.get(&s.label).copied().flatten().is_some();
            for op in ops {
                match op {
                    Op::Assign(v, e) if divergent || nu_expr(e, nu) => {
                        nu.insert(*v);
                    }
                    Op::Read(Some(v), _) | Op::Atomic(Some(v), _) => {
                        nu.insert(*v);
                    }
                    _ => {}
                }
            }
        }
    });
}

/// The syntactic pass: for each label, the innermost non-uniform condition (if any) that its
/// predicate depends on.
struct Taint<'a> {
    nu: &'a HashSet<VarId>,
    before: HashMap<Label, Option<Label>>,
    after: HashMap<Label, Option<Label>>,
    /// A `return` under a non-uniform predicate was passed: everything later is non-uniform.
    ret: Option<Label>,
    /// A `break` under a non-uniform predicate in the current loop.
    brk: Option<Label>,
}

impl<'a> Taint<'a> {
    fn run(k: &Kernel, nu: &'a HashSet<VarId>) -> Taint<'a> {
        let mut t = Taint {
            nu,
            before: HashMap::new(),
            after: HashMap::new(),
            ret: None,
            brk: None,
        };
        t.block(&k.body, None);
        t
    }

    fn eff(&self, cur: Option<Label>) -> Option<Label> {
        cur.or(self.ret)
    }

    /// Walks a block; returns the cause of a non-uniform jump that leaves it (the code after it
    /// in the same iteration runs under a non-uniform predicate).
    fn block(&mut self, b: &Block, cur: Option<Label>) -> Option<Label> {
        self.before.insert(b.label, self.eff(cur));
        let mut c = cur;
        let mut esc = None;
        for s in &b.stmts {
            if let Some(j) = self.stmt(s, c) {
                c = c.or(Some(j));
                esc = esc.or(Some(j));
            }
        }
        esc
    }

    fn stmt(&mut self, s: &Stmt, cur: Option<Label>) -> Option<Label> {
        let cur = self.eff(cur);
        self.before.insert(s.label, cur);
        let esc = match &s.kind {
            StmtKind::Basic(_) | StmtKind::Barrier(..) | StmtKind::Assume(_) => None,
            StmtKind::Break => {
                self.brk = self.brk.or(cur);
                cur
            }
            StmtKind::Continue => cur,
            StmtKind::Return => {
                self.ret = self.ret.or(cur);
                cur
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let inner = if nu_expr(cond, self.nu) {
                    Some(s.label)
                } else {
                    cur
                };
                let e1 = self.block(then_blk, inner);
                let e2 = self.block(else_blk, inner);
                e1.or(e2)
            }
            StmtKind::Loop {
                header,
                cond,
                body,
                step,
                ..
            } => {
                let inner = if nu_expr(cond, self.nu) {
                    Some(s.label)
                } else {
                    cur
                };
                let saved = self.brk.take();
                let ret0 = self.ret;
                self.loop_pass(header, body, step, inner);
                // A non-uniform break or return disables threads for all later iterations:
                // the whole loop runs under a non-uniform predicate.
                // The jump is reported as the cause even when it also made the guard non-uniform
                // (a loop counter stepped only by the threads that did not break).
                let cause = self.brk.or(if ret0.is_none() { self.ret } else { None });
                if let Some(c) = cause {
                    self.loop_pass(header, body, step, Some(c));
                }
                self.brk = saved;
                None
            }
        };
        self.after.insert(s.label, self.eff(cur.or(esc)));
        esc
    }

    fn loop_pass(&mut self, header: &[Stmt], body: &Block, step: &[Stmt], inner: Option<Label>) {
        for h in header {
            self.stmt(h, inner);
        }
        self.block(body, inner);
        for h in step {
            self.stmt(h, inner);
        }
    }
}

/// Decides warp-uniformity of control predicates with two threads of one warp.
struct WarpCheck {
    solver: Solver,
    w1: symex::Walk,
    w2: symex::Walk,
}

impl WarpCheck {
    fn new(k: &Kernel, nu: &HashSet<VarId>) -> WarpCheck {
        let geom = super::query::geometry(k);
        let t1 = ThreadVars::new(1, "bid");
        let t2 = ThreadVars::new(2, "bid");
        // Both threads in the same iteration of every loop.
        let mut all_loops = HashSet::new();
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            if matches!(s.kind, StmtKind::Loop { .. }) {
                all_loops.insert(s.label);
            }
        });
        let w1 = symex::walk(k, nu, &geom, &t1, &all_loops);
        let w2 = symex::walk(k, nu, &geom, &t2, &all_loops);
        let solver = Solver::new();
        let mut p = z3::Params::new();
        p.set_u32("timeout", 2000);
        solver.set_params(&p);
        for c in super::query::geometry_constraints(k, &geom, &[&t1, &t2]) {
            solver.assert(&c);
        }
        let w1_ = super::query::warp_of(&t1, &geom);
        let w2_ = super::query::warp_of(&t2, &geom);
        solver.assert(w1_.eq(&w2_));
        WarpCheck { solver, w1, w2 }
    }

    /// [`Level::Warp`] when no two threads of one warp can disagree on the predicate.
    fn level(&self, p1: &PointTerms, p2: &PointTerms) -> Level {
        self.solver.push();
        self.solver.assert(&p1.facts);
        self.solver.assert(&p2.facts);
        self.solver.assert(p1.ctrl.xor(&p2.ctrl));
        let r = self.solver.check();
        self.solver.pop(1);
        match r {
            SatResult::Unsat => Level::Warp,
            _ => Level::Thread,
        }
    }
}
