//! Syntactic facts about IR statements that several stages ask: the expressions directly in a
//! statement, the variables a loop assigns, and the jumps it contains.

use crate::ir::*;

/// Calls `f` on every expression directly inside statement `s` (not nested statements).
pub(crate) fn for_each_expr(s: &Stmt, f: &mut impl FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Basic(ops) => {
            for op in ops {
                op.for_each_expr(f);
            }
        }
        StmtKind::If { cond, .. } | StmtKind::Loop(Loop { cond, .. }) | StmtKind::Assume(cond) => f(cond),
        StmtKind::Barrier(Barrier::NamedSync { id, count }, _) => {
            f(id);
            if let Some(c) = count {
                f(c)
            }
        }
        StmtKind::Barrier(Barrier::NamedArrive { id, count }, _) => {
            f(id);
            f(count)
        }
        _ => {}
    }
}

/// Variables assigned anywhere in the given statements (including nested loops).
pub(crate) fn modified_vars(header: &[Stmt], body: &Block, step: &[Stmt]) -> Vec<VarId> {
    let mut out = Vec::new();
    let mut add = |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                if let Some(v) = &op.assigned_var() {
                    if !out.contains(v) {
                        out.push(*v);
                    }
                }
            }
        }
    };
    for s in header.iter().chain(step) {
        crate::tree::visit_stmt(s, &mut add);
    }
    crate::tree::for_each_stmt(body, &mut add);
    out
}

/// Whether `b` contains a `return`, at any depth.
pub(crate) fn has_return(b: &Block) -> bool {
    let mut found = false;
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| found |= matches!(s.kind, StmtKind::Return { .. }));
    found
}

/// Whether `b` contains a statement matching `pred` that belongs to the loop owning `b`
/// (not nested in an inner loop).
pub(crate) fn has_jump(b: &Block, pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::If { then_blk, else_blk, .. } => has_jump(then_blk, pred) || has_jump(else_blk, pred),
        StmtKind::Loop(_) => false,
        k => pred(k),
    })
}

/// Locals some path may read before any assignment to them: C leaves such a value
/// indeterminate, so threads need not agree on it (the uniformity analysis starts from them).
/// Conservative: a loop body may run zero times, and a variable counts as assigned after an
/// `if` only when both branches assign it.
pub(crate) fn read_before_assigned(k: &Kernel) -> VarSet {
    let mut assigned = Assigned(vec![false; k.vars.len()]);
    for v in k.vars.iter().filter(|v| v.kind == VarKind::Param) {
        assigned.set(v.id);
    }
    let mut out = VarSet::new();
    uninit_block(&k.body, &mut assigned, &mut out);
    out
}

type VarSet = std::collections::HashSet<VarId>;

/// The variables assigned on every path so far, by id (copied at each branch: a vector of
/// flags copies and tests far faster than a hash set, and every variable read tests it).
#[derive(Clone)]
struct Assigned(Vec<bool>);

impl Assigned {
    fn has(&self, v: VarId) -> bool {
        self.0.get(v.0 as usize).copied().unwrap_or(false)
    }

    fn set(&mut self, v: VarId) {
        let i = v.0 as usize;
        if i >= self.0.len() {
            self.0.resize(i + 1, false);
        }
        self.0[i] = true;
    }

    /// Assigned after an `if` whose branches left `a` and `b` (each a superset of `self`).
    fn both(&mut self, a: &Assigned, b: &Assigned) {
        for (i, x) in self.0.iter_mut().enumerate() {
            *x |= a.0.get(i).copied().unwrap_or(false) && b.0.get(i).copied().unwrap_or(false);
        }
    }
}

fn uninit_block(b: &Block, assigned: &mut Assigned, out: &mut VarSet) {
    for s in &b.stmts {
        uninit_stmt(s, assigned, out);
    }
}

/// Adds to `out` the variables `e` reads that are not in `assigned`.
fn uninit_reads(e: &Expr, assigned: &Assigned, out: &mut VarSet) {
    e.for_each_var(&mut |v| {
        if !assigned.has(v) {
            out.insert(v);
        }
    })
}

fn uninit_stmt(s: &Stmt, assigned: &mut Assigned, out: &mut VarSet) {
    match &s.kind {
        StmtKind::Basic(ops) => {
            for op in ops {
                op.for_each_expr(&mut |e| uninit_reads(e, assigned, out));
                if let Some(v) = op.assigned_var() {
                    assigned.set(v);
                }
            }
        }
        StmtKind::If {
            cond,
            then_blk,
            else_blk,
        } => {
            uninit_reads(cond, assigned, out);
            let mut t = assigned.clone();
            uninit_block(then_blk, &mut t, out);
            let mut e = assigned.clone();
            uninit_block(else_blk, &mut e, out);
            assigned.both(&t, &e);
        }
        StmtKind::Loop(lp) => {
            let mut inside = assigned.clone();
            if lp.kind == LoopKind::DoWhile {
                uninit_block(&lp.body, &mut inside, out);
            }
            for h in &lp.header {
                uninit_stmt(h, &mut inside, out);
            }
            uninit_reads(&lp.cond, &inside, out);
            // What the test saw assigned is assigned after the loop.
            let after = inside.clone();
            if lp.kind != LoopKind::DoWhile {
                uninit_block(&lp.body, &mut inside, out);
            }
            for st in &lp.step {
                uninit_stmt(st, &mut inside, out);
            }
            *assigned = after;
        }
        _ => for_each_expr(s, &mut |e| uninit_reads(e, assigned, out)),
    }
}

/// For each read (statement, op) of a shared or global array: the store its own thread made
/// to the same bytes just before it, when the syntax guarantees one — an earlier store in the
/// same block (or earlier in the same statement) of the same size at the same offset
/// expression, with no barrier, no other store or atomic to that array, and no assignment to a
/// variable of the offset in between. A thread that executes the read executed that store,
/// in the same iteration, after any other store of its own to those bytes.
pub(crate) fn own_earlier_writes(k: &Kernel) -> std::collections::HashMap<(Label, usize), (Label, usize)> {
    let mut out = std::collections::HashMap::new();
    own_writes_in(k, &k.body, &mut out);
    out
}

fn own_writes_in(k: &Kernel, b: &Block, out: &mut std::collections::HashMap<(Label, usize), (Label, usize)>) {
    // Stores of the block seen so far that may still be a later read's own store:
    // (statement, op, access).
    let mut open: Vec<(Label, usize, &Access)> = Vec::new();
    for s in &b.stmts {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for (i, op) in ops.iter().enumerate() {
                    if let Op::Read(_, a) = op {
                        let src = open.iter().rev().find(|(_, _, w)| w.array == a.array);
                        if let Some(&(l, wi, w)) = src {
                            if w.offset == a.offset && w.size == a.size {
                                out.insert((s.label, i), (l, wi));
                            }
                        }
                    }
                    match op {
                        Op::Write(a, _) => {
                            open.retain(|(_, _, w)| w.array != a.array);
                            if k.array(a.array).space != Space::Local {
                                open.push((s.label, i, a));
                            }
                        }
                        Op::Atomic(dst, a, _) => {
                            open.retain(|(_, _, w)| w.array != a.array);
                            if let Some(v) = dst {
                                open.retain(|(_, _, w)| !mentions(&w.offset, *v));
                            }
                        }
                        Op::Assign(v, _) | Op::Read(Some(v), _) => open.retain(|(_, _, w)| !mentions(&w.offset, *v)),
                        Op::Read(None, _) => {}
                        // Async copies write memory out of program order: no store stays known.
                        _ => open.clear(),
                    }
                }
            }
            _ => {
                // A nested statement ends every candidate it may disturb: a barrier in it, a
                // store to the array, or an assignment to a variable of the offset.
                let mut barrier = false;
                let mut stored = Vec::new();
                let mut assigned = Vec::new();
                crate::tree::visit_stmt(s, &mut |c: &Stmt| match &c.kind {
                    StmtKind::Barrier(..) => barrier = true,
                    StmtKind::Basic(ops) => {
                        for op in ops {
                            if let Op::Write(a, _) | Op::Atomic(_, a, _) = op {
                                stored.push(a.array);
                            }
                            if let Op::Assign(v, _) | Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) = op {
                                assigned.push(*v);
                            }
                        }
                    }
                    _ => {}
                });
                if barrier {
                    open.clear();
                }
                open.retain(|(_, _, w)| {
                    !stored.contains(&w.array) && !assigned.iter().any(|v| mentions(&w.offset, *v))
                });
                match &s.kind {
                    StmtKind::If { then_blk, else_blk, .. } => {
                        own_writes_in(k, then_blk, out);
                        own_writes_in(k, else_blk, out);
                    }
                    StmtKind::Loop(lp) => own_writes_in(k, &lp.body, out),
                    _ => {}
                }
            }
        }
    }
}

/// Whether `e` reads variable `v`.
fn mentions(e: &Expr, v: VarId) -> bool {
    let mut found = false;
    e.for_each_var(&mut |x| found |= x == v);
    found
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::ir::BinOp::*;

    /// A variable counts as assigned after an `if` only when both branches assign it, and after
    /// a loop only when its test saw it assigned (the body may run zero times); parameters are
    /// assigned from the start.
    #[test]
    fn reads_before_assignment_follow_every_path() {
        let mut b = Kb::new(Some([32, 1, 1]));
        let n = b.param("n");
        let [both, one, looped, fine, sink] = ["both", "one", "looped", "fine", "sink"].map(|x| b.local(x));
        let then_ = vec![b.assign(both, u(1)), b.assign(one, u(1))];
        let else_ = vec![b.assign(both, u(2))];
        let branch = b.if_(ub(Lt, tid(), u(4)), then_, else_);
        let i = b.local("i");
        let body = vec![b.assign(looped, u(3))];
        let lp = b.for_(i, u(0), ub(Lt, var(i), var(n)), ub(Add, var(i), u(1)), body);
        let mut stmts = vec![b.assign(fine, var(n)), branch];
        stmts.extend(lp);
        let sum = [both, one, looped, fine]
            .iter()
            .fold(u(0), |acc, &v| ub(Add, acc, var(v)));
        stmts.push(b.assign(sink, sum));
        let k = b.finish(stmts);
        let got = read_before_assigned(&k);
        let want: VarSet = [one, looped].into_iter().collect();
        assert_eq!(got, want);
    }
}

/// The names of the kernel's parameters that some condition depends on (an `if`, a loop test,
/// an assumption), directly or through the locals computed from them. A size that bounds a
/// loop (`i < n`) is one; a stride used only to place elements is not.
pub(crate) fn params_in_conditions(k: &Kernel) -> std::collections::HashSet<String> {
    use std::collections::{HashMap, HashSet};
    let params: HashMap<VarId, &str> = k
        .vars
        .iter()
        .filter(|v| v.kind == VarKind::Param)
        .map(|v| (v.id, v.name.as_str()))
        .collect();
    // Which parameters each variable is computed from, to a fixed point (loops assign late).
    let mut from: HashMap<VarId, HashSet<VarId>> = params.keys().map(|&p| (p, HashSet::from([p]))).collect();
    let sources = |e: &Expr, from: &HashMap<VarId, HashSet<VarId>>| {
        let mut out = HashSet::new();
        e.for_each_var(&mut |v| out.extend(from.get(&v).into_iter().flatten().copied()));
        out
    };
    loop {
        let mut changed = false;
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            let StmtKind::Basic(ops) = &s.kind else { return };
            for op in ops {
                let Op::Assign(v, e) = op else { continue };
                let add = sources(e, &from);
                let set = from.entry(*v).or_default();
                let before = set.len();
                set.extend(add);
                changed |= set.len() != before;
            }
        });
        if !changed {
            break;
        }
    }
    let mut out = HashSet::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::If { cond, .. } | StmtKind::Loop(Loop { cond, .. }) | StmtKind::Assume(cond) = &s.kind {
            out.extend(
                sources(cond, &from)
                    .into_iter()
                    .filter_map(|p| params.get(&p))
                    .map(|n| n.to_string()),
            );
        }
    });
    out
}
