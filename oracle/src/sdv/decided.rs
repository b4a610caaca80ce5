//! Branch feasibility: `if` conditions that hold (or fail) in every thread that reaches them,
//! and loops whose first test always passes, decided by Z3 where constant folding cannot
//! (`int tid = threadIdx.x; if (tid >= 0)`, `__requires(n > 0)` before `for (i = 0; i < n; i++)`).
//!
//! The lock-step CFG gives a branch that may be skipped a bypass edge, and a barrier on a
//! bypassable branch separates nothing. A decided branch has no bypass: a barrier in it runs
//! whenever the statement does.

use super::levels::Uniformity;
use super::symex;
use super::threads::{geometry, geometry_constraints, ThreadVars};
use crate::ir::*;
use crate::smt::numeral;
use std::collections::{HashMap, HashSet};
use z3::ast::{Bool, Dynamic};
use z3::SatResult;

/// What is decided: for each decided `if`, the branch every thread takes (`true`: then);
/// the loops whose first test every thread passes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Decided {
    /// `if` label → the value of its condition in every thread that evaluates it.
    pub branches: HashMap<Label, bool>,
    /// Loops (not do-while: those always run once) entered by every thread that reaches them.
    pub entered: HashSet<Label>,
}

/// Which statements to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope<'a> {
    /// Only `if`s and loops with a block-wide barrier inside (what the checker needs).
    WithBarriers,
    /// Every `if` and loop.
    All,
    /// The `if`s and loops with one of these blocks as a branch or body (synthesis: the blocks
    /// around candidate positions, where it needs to know whether a barrier would always run).
    Blocks(&'a HashSet<Label>),
}

/// Decides the conditions of `k` (see [`Decided`]) with one symbolic thread; the solver gets
/// `timeout_ms` per question, and an unanswered question leaves the statement undecided.
pub(crate) fn decide(k: &Kernel, unif: &Uniformity, scope: Scope<'_>, timeout_ms: u32) -> Decided {
    let mut ifs = Vec::new();
    let mut loops = Vec::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        let wanted = |blocks: &[&Block]| match scope {
            Scope::All => true,
            Scope::WithBarriers => blocks.iter().any(|b| has_block_barrier(b)),
            Scope::Blocks(set) => blocks.iter().any(|b| set.contains(&b.label)),
        };
        match &s.kind {
            StmtKind::If { then_blk, else_blk, .. } if wanted(&[then_blk, else_blk]) => ifs.push(s.label),
            StmtKind::Loop(Loop { kind, body, .. }) if *kind != LoopKind::DoWhile && wanted(&[body]) => {
                loops.push(s.label)
            }
            _ => {}
        }
    });
    let mut out = Decided::default();
    if ifs.is_empty() && loops.is_empty() {
        return out;
    }
    let geom = geometry(k);
    let th = ThreadVars::new(1);
    let w = symex::walk(k, unif, &geom, &th, &HashSet::new(), symex::Detail::Conditions);
    let solver = crate::smt::query_solver(timeout_ms);
    let facts = geometry_constraints(k, &geom, &[&th]);
    for c in &facts {
        solver.assert(c);
    }
    let hubs: HashSet<String> = th.index_names().collect();
    let mut constants = HashMap::new();
    let mut never = |extra: &[Bool], roots: &[Dynamic]| {
        // A thread found by evaluation that takes the branch settles it without the solver.
        let mut all = facts.clone();
        all.extend(extra.iter().cloned());
        if super::guess::satisfiable(&all) {
            return false;
        }
        // Most of the walk's facts are about other values: the slice connected to the
        // condition is a relaxation, so its proof settles the question.
        let sliced = super::query::slice(extra, roots, &hubs, &mut constants).filter(|s| s.small);
        let attempts = sliced.map(|s| s.formula).into_iter().chain([Bool::and(extra)]);
        for f in attempts {
            solver.push();
            solver.assert(&f);
            let r = solver.check();
            solver.pop(1);
            if r == SatResult::Unsat {
                return true;
            }
        }
        false
    };
    for l in ifs {
        let Some((at, c)) = w.conds.get(&l) else { continue };
        let base = [at.ctrl.clone(), at.facts.clone()];
        let roots = [Dynamic::from_ast(c)];
        if never(&[base[0].clone(), base[1].clone(), c.not()], &roots) {
            out.branches.insert(l, true);
        } else if never(&[base[0].clone(), base[1].clone(), c.clone()], &roots) {
            out.branches.insert(l, false);
        }
    }
    for l in loops {
        let (Some((at, c)), Some(it), Some(first)) = (w.conds.get(&l), w.iters.get(&l), w.first.get(&l)) else {
            continue;
        };
        let zero = it.eq(numeral(0, 32));
        let roots = [Dynamic::from_ast(c), Dynamic::from_ast(it), Dynamic::from_ast(first)];
        if never(
            &[at.ctrl.clone(), at.facts.clone(), zero, first.clone(), c.not()],
            &roots,
        ) {
            out.entered.insert(l);
        }
    }
    out
}

/// Whether `b` contains a block-wide barrier at any depth.
fn has_block_barrier(b: &Block) -> bool {
    let mut found = false;
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| {
        found |= matches!(&s.kind, StmtKind::Barrier(bar, _) if bar.is_block_wide());
    });
    found
}
