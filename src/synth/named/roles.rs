//! Which warps execute each label, and how often: a per-warp walk of the kernel with the
//! concrete launch configuration.
//!
//! Warp-specialized kernels split work with warp-uniform predicates (`if (warp == 0)`), so one
//! representative thread per warp (lane 0) decides every such predicate. Anything the walk cannot
//! evaluate (values read from memory, lane-dependent conditions) makes the labels under it
//! [`Exec::Maybe`]; synthesis never places a named barrier at such a label.

use autosync_oracle::ir::{Builtin, Expr, Kernel, Label, Loop, LoopKind, Op, Stmt, StmtKind, VarId, VarKind};
use autosync_oracle::sdv::{Level, Uniformity};
use autosync_oracle::tree::{leaves_early, visit_stmt, LabelTree, Position};
use std::collections::{HashMap, HashSet};

/// Threads per warp.
pub const WARP: u32 = 32;

/// Loops are simulated for at most this many iterations when counting trips.
const MAX_TRIPS: u64 = 1 << 16;

/// Whether one warp executes a label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec {
    /// Never.
    No,
    /// Whenever control reaches the enclosing block (every iteration of enclosing loops).
    Yes,
    /// Depends on something the walk cannot evaluate.
    Maybe,
}

impl Exec {
    fn join(self, o: Exec) -> Exec {
        if self == o {
            self
        } else {
            Exec::Maybe
        }
    }
    fn under(self, o: Exec) -> Exec {
        match (self, o) {
            (Exec::No, _) | (_, Exec::No) => Exec::No,
            (Exec::Yes, Exec::Yes) => Exec::Yes,
            _ => Exec::Maybe,
        }
    }
}

/// Per-warp execution facts of a kernel.
#[derive(Clone, Debug)]
pub struct Roles {
    /// Warps in the block.
    pub nwarps: u32,
    before: HashMap<Label, Vec<Exec>>,
    after: HashMap<Label, Vec<Exec>>,
    trips: HashMap<Label, Vec<Option<u64>>>,
}

type Env = HashMap<VarId, i64>;

impl Roles {
    /// Walks `k` once per warp. `None` when blockDim is unknown. Conditions that the
    /// uniformity analysis finds lane-dependent are never decided from the representative lane.
    pub fn new(k: &Kernel, unif: &Uniformity) -> Option<Roles> {
        let dim = k.launch.block_dim?;
        let threads: u64 = dim.iter().map(|&d| d as u64).product();
        if threads == 0 {
            return None;
        }
        let nwarps = threads.div_ceil(WARP as u64) as u32;
        let mut r = Roles {
            nwarps,
            before: HashMap::new(),
            after: HashMap::new(),
            trips: HashMap::new(),
        };
        for w in 0..nwarps {
            let lin = w * WARP;
            let tid = [lin % dim[0], (lin / dim[0]) % dim[1], lin / (dim[0] * dim[1])];
            let mut walker = Walker {
                k,
                unif,
                dim,
                tid,
                w,
                nwarps,
                roles: &mut r,
            };
            let mut env = Env::new();
            walker.block_stmts(&k.body.stmts, k.body.label, Exec::Yes, &mut env);
        }
        Some(r)
    }

    fn exec_at(&self, pos: Position) -> Option<&Vec<Exec>> {
        match pos {
            Position::BlockStart(b) => self.before.get(&b),
            Position::After(l) => self.after.get(&l),
        }
    }

    /// The warps that execute `pos`, when that is decided for every warp.
    pub fn warps_at(&self, pos: Position) -> Option<Vec<u32>> {
        let v = self.exec_at(pos)?;
        if v.contains(&Exec::Maybe) {
            return None;
        }
        Some((0..self.nwarps).filter(|&w| v[w as usize] == Exec::Yes).collect())
    }

    /// The warps that execute label `l` (statement or block), when decided for every warp.
    pub fn warps_of(&self, l: Label) -> Option<Vec<u32>> {
        let v = self.before.get(&l)?;
        if v.contains(&Exec::Maybe) {
            return None;
        }
        Some((0..self.nwarps).filter(|&w| v[w as usize] == Exec::Yes).collect())
    }

    /// Trip count of loop statement `l` in warp `w`, when the walk could count it.
    pub fn trips(&self, l: Label, w: u32) -> Option<u64> {
        self.trips.get(&l).and_then(|v| v[w as usize])
    }

    /// How many times each of `warps` executes label `l`: the same known number for all, or `None`.
    pub fn count(&self, tree: &LabelTree, l: Label, warps: &[u32]) -> Option<u64> {
        let loops = tree.get(l).loop_owners();
        let mut common = None;
        for &w in warps {
            let mut c = 1u64;
            for lp in &loops {
                c = c.checked_mul(self.trips(*lp, w)?)?;
            }
            match common {
                None => common = Some(c),
                Some(x) if x != c => return None,
                _ => {}
            }
        }
        common
    }
}

struct Walker<'a> {
    k: &'a Kernel,
    unif: &'a Uniformity,
    dim: [u32; 3],
    tid: [u32; 3],
    w: u32,
    nwarps: u32,
    roles: &'a mut Roles,
}

impl Walker<'_> {
    fn mark(map: &mut HashMap<Label, Vec<Exec>>, l: Label, w: u32, n: u32, e: Exec) {
        map.entry(l).or_insert_with(|| vec![Exec::No; n as usize])[w as usize] = e;
    }

    /// Walks a block's statements; returns the status after them.
    fn block_stmts(&mut self, stmts: &[Stmt], label: Label, st: Exec, env: &mut Env) -> Exec {
        Self::mark(&mut self.roles.before, label, self.w, self.nwarps, st);
        let mut cur = st;
        for s in stmts {
            cur = self.stmt(s, cur, env);
        }
        cur
    }

    fn stmt(&mut self, s: &Stmt, cur: Exec, env: &mut Env) -> Exec {
        Self::mark(&mut self.roles.before, s.label, self.w, self.nwarps, cur);
        let next = match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    self.op(op, cur, env);
                }
                cur
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let lane_dependent = self.unif.level(then_blk.label) == Level::Thread;
                let c = if cur == Exec::No || lane_dependent {
                    None
                } else {
                    self.eval(cond, env).map(|v| v != 0)
                };
                let (ts, es) = match c {
                    _ if cur == Exec::No => (Exec::No, Exec::No),
                    Some(true) => (cur, Exec::No),
                    Some(false) => (Exec::No, cur),
                    None => (Exec::Maybe, Exec::Maybe),
                };
                let mut te = env.clone();
                let mut ee = env.clone();
                let ta = self.block_stmts(&then_blk.stmts, then_blk.label, ts, &mut te);
                let ea = self.block_stmts(&else_blk.stmts, else_blk.label, es, &mut ee);
                *env = match (ts, es) {
                    (Exec::No, _) => ee,
                    (_, Exec::No) => te,
                    _ => te.into_iter().filter(|(v, x)| ee.get(v) == Some(x)).collect(),
                };
                match (ts, es) {
                    (Exec::No, Exec::No) => cur,
                    (Exec::No, _) => ea,
                    (_, Exec::No) => ta,
                    // Branches that cannot leave early rejoin with the status they started from.
                    _ if !leaves_early(then_blk, true, true) && !leaves_early(else_blk, true, true) => cur,
                    _ => ta.join(ea).under(cur),
                }
            }
            StmtKind::Loop(_) => self.loop_stmt(s, cur, env),
            StmtKind::Break | StmtKind::Continue => {
                if cur == Exec::No {
                    Exec::No
                } else {
                    Exec::Maybe
                }
            }
            StmtKind::Return { .. } => {
                if cur == Exec::Maybe {
                    Exec::Maybe
                } else {
                    Exec::No
                }
            }
            StmtKind::Barrier(..) | StmtKind::Assume(_) => cur,
        };
        Self::mark(&mut self.roles.after, s.label, self.w, self.nwarps, next);
        next
    }

    fn op(&mut self, op: &Op, cur: Exec, env: &mut Env) {
        match op {
            Op::Assign(v, e) => {
                let val = if cur == Exec::Yes { self.eval(e, env) } else { None };
                match val {
                    Some(x) => {
                        env.insert(*v, x);
                    }
                    None if cur != Exec::No => {
                        env.remove(v);
                    }
                    None => {}
                }
            }
            Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => {
                env.remove(v);
            }
            _ => {}
        }
    }

    fn loop_stmt(&mut self, s: &Stmt, cur: Exec, env: &mut Env) -> Exec {
        let StmtKind::Loop(Loop {
            kind,
            header,
            cond,
            body,
            step,
            ..
        }) = &s.kind
        else {
            return cur;
        };
        let mut assigned = HashSet::new();
        let mut body_assigned = HashSet::new();
        for st in header.iter().chain(step.iter()) {
            visit_stmt(st, &mut |x| collect_assigned(x, &mut assigned));
        }
        for st in &body.stmts {
            visit_stmt(st, &mut |x| collect_assigned(x, &mut body_assigned));
        }
        let mut cond_vars = HashSet::new();
        cond.for_each_var(&mut |v| {
            cond_vars.insert(v);
        });
        // A one-shot loop (a lowered `switch`, an inlined body with an early return) runs its
        // body once per entry; its `break`s lead to the statement after it.
        let once = runs_once(s);
        let exits = leaves_early(body, !once, false);
        // A lane-dependent trip count is not the warp's: lane 0 cannot stand for it.
        let trips = if once {
            (cur == Exec::Yes).then_some(1)
        } else if cur == Exec::Yes
            && *kind != LoopKind::DoWhile
            && !exits
            && cond_vars.is_disjoint(&body_assigned)
            && self.unif.level(body.label) != Level::Thread
        {
            self.count_trips(header, cond, step, env)
        } else {
            None
        };
        self.roles
            .trips
            .entry(s.label)
            .or_insert_with(|| vec![None; self.nwarps as usize])[self.w as usize] = trips;
        assigned.extend(body_assigned);
        for v in &assigned {
            env.remove(v);
        }
        let inner = match (cur, trips) {
            (Exec::No, _) | (_, Some(0)) => Exec::No,
            (_, Some(_)) => cur,
            _ => Exec::Maybe,
        };
        let mut benv = env.clone();
        for h in header {
            self.stmt(h, inner, &mut benv);
        }
        let after_body = self.block_stmts(&body.stmts, body.label, inner, &mut benv);
        for h in step {
            self.stmt(h, inner, &mut benv);
        }
        if cur == Exec::No {
            return Exec::No;
        }
        let _ = after_body;
        if exits {
            Exec::Maybe.under(cur)
        } else {
            cur
        }
    }

    /// Runs header, test and step concretely (the body does not touch the tested variables).
    fn count_trips(&mut self, header: &[Stmt], cond: &Expr, step: &[Stmt], env: &Env) -> Option<u64> {
        let mut e = env.clone();
        let mut n = 0u64;
        let run = |this: &Self, stmts: &[Stmt], e: &mut Env| -> Option<()> {
            for st in stmts {
                let StmtKind::Basic(ops) = &st.kind else { return None };
                for op in ops {
                    match op {
                        Op::Assign(v, x) => {
                            let val = this.eval(x, e)?;
                            e.insert(*v, val);
                        }
                        Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => {
                            e.remove(v);
                        }
                        _ => {}
                    }
                }
            }
            Some(())
        };
        loop {
            run(self, header, &mut e)?;
            if self.eval(cond, &e)? == 0 {
                return Some(n);
            }
            n += 1;
            if n > MAX_TRIPS {
                return None;
            }
            run(self, step, &mut e)?;
        }
    }

    fn eval(&self, e: &Expr, env: &Env) -> Option<i64> {
        Some(match e {
            Expr::Const(v, ty) => ty.normalize(*v),
            Expr::Builtin(b) => match b {
                Builtin::ThreadIdx(d) => self.tid[d.index()] as i64,
                Builtin::BlockDim(d) => self.dim[d.index()] as i64,
                Builtin::WarpSize => WARP as i64,
                Builtin::BlockIdx(_) | Builtin::GridDim(_) => return None,
            },
            Expr::Var(v) => match env.get(v) {
                Some(x) => *x,
                None => {
                    let var = self.k.vars.get(v.0 as usize)?;
                    if var.kind != VarKind::Param {
                        return None;
                    }
                    var.ty.normalize(*self.k.launch.params.get(&var.name)?)
                }
            },
            Expr::Un(op, ty, a) => op.fold(*ty, ty.normalize(self.eval(a, env)?))?,
            Expr::Bin(op, ty, a, b) => op.fold(*ty, self.eval(a, env)?, self.eval(b, env)?)?,
            Expr::Cast(ty, a) => ty.normalize(self.eval(a, env)?),
            Expr::Select(c, a, b) => {
                if self.eval(c, env)? != 0 {
                    self.eval(a, env)?
                } else {
                    self.eval(b, env)?
                }
            }
            Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => return None,
        })
    }
}

fn collect_assigned(s: &Stmt, out: &mut HashSet<VarId>) {
    if let StmtKind::Basic(ops) = &s.kind {
        for op in ops {
            match op {
                Op::Assign(v, _) | Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => {
                    out.insert(*v);
                }
                _ => {}
            }
        }
    }
}

/// Whether loop statement `s` is a one-shot `do { ... } while (false)`, as the front end lowers
/// a `switch` or an inlined body that returns early.
fn runs_once(s: &Stmt) -> bool {
    matches!(
        &s.kind,
        StmtKind::Loop(Loop {
            kind: LoopKind::DoWhile,
            cond: Expr::Const(0, _),
            header,
            ..
        }) if header.is_empty()
    )
}
