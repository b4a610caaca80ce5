//! Kernels some thread of which traps on every path: code a library compiles as `brkpt` below
//! the architecture it needs (CUTLASS's `NamedBarrier` below sm_90) or an `#if __CUDA_ARCH__`
//! branch that ends in `__trap()`. The checkers treat a trap as the end of the thread's path,
//! which orders nothing and races with nothing, so such a kernel would look clean; it never
//! completes a launch, and this finds it.
//!
//! The search runs a few sample threads of a few block shapes through the kernel's statements
//! with their geometry concrete. A condition it can evaluate picks its branch; one it cannot
//! (it reads memory, or a parameter with no value) is a choice the data makes, and the thread
//! traps on every path only if it does so on both sides. A found trap is certain for that
//! thread; a kernel the samples miss is not reported (the search can only under-report).

use crate::ir::*;
use crate::report::{SyncDefect, SyncDefectKind};
use std::collections::HashMap;

/// Statements one thread's search may visit before it gives up (loops are run iteration by
/// iteration).
const STEPS: usize = 200_000;

/// Block shapes tried when the launch does not fix one.
const SHAPES: [[u32; 3]; 5] = [[32, 1, 1], [128, 1, 1], [256, 1, 1], [384, 1, 1], [1024, 1, 1]];

/// A thread some path of which is not a trap, for whom every path traps: the first such
/// thread of the samples, as a defect naming the trap.
pub fn always_traps(k: &Kernel) -> Option<SyncDefect> {
    if !has_trap(&k.body) {
        return None;
    }
    let grid = k.launch.grid_dim;
    let shapes: Vec<[u32; 3]> = match k.launch.block_dim {
        Some(b) => vec![b],
        None => SHAPES.to_vec(),
    };
    for dim in shapes {
        // A shape the launch's facts rule out (`blockDim.y == 1`) is no block of the kernel.
        let probe = Thread::new(k, [0, 0, 0], dim, grid);
        if k.launch.facts.iter().any(|f| probe.eval(f) == Some(0)) {
            continue;
        }
        for tid in sample_threads(dim) {
            let mut t = Thread::new(k, tid, dim, grid);
            if let Flow::Trap(s, trap) = t.block(&k.body) {
                return Some(defect(k, s, trap, tid, dim));
            }
        }
    }
    None
}

/// Whether the kernel has a trap at all (most have none: nothing to search).
fn has_trap(b: &Block) -> bool {
    let mut found = false;
    crate::tree::for_each_stmt(b, &mut |s: &Stmt| {
        found |= matches!(s.kind, StmtKind::Return { trap: Some(_) })
    });
    found
}

/// The first two and last lanes of every warp, in the first and last row and slice.
fn sample_threads(dim: [u32; 3]) -> Vec<[u32; 3]> {
    let mut xs: Vec<u32> = (0..dim[0].div_ceil(32))
        .flat_map(|w| [w * 32, w * 32 + 1, w * 32 + 31])
        .filter(|&x| x < dim[0])
        .collect();
    xs.push(dim[0] - 1);
    xs.dedup();
    let ends = |n: u32| if n > 1 { vec![0, n - 1] } else { vec![0] };
    let mut out = Vec::new();
    for z in ends(dim[2]) {
        for y in ends(dim[1]) {
            out.extend(xs.iter().map(|&x| [x, y, z]));
        }
    }
    out
}

/// The defect: thread `tid` of a block of `dim` reaches `trap` at statement `s` on every path.
fn defect(k: &Kernel, s: &Stmt, trap: &Trap, tid: [u32; 3], dim: [u32; 3]) -> SyncDefect {
    let place = |v: [u32; 3]| format!("({},{},{})", v[0], v[1], v[2]);
    SyncDefect {
        kind: SyncDefectKind::AlwaysTraps {
            instr: trap.instr.clone(),
            function: trap.function.clone(),
            arch: trap.arch.clone(),
        },
        labels: vec![s.label],
        spans: vec![s.span],
        trace: vec![format!(
            "thread {} of a block of {} threads {} reaches `{}` at {} whatever the data",
            place(tid),
            dim.iter().product::<u32>(),
            place(dim),
            trap.instr,
            k.loc(s.span)
        )],
    }
}

/// How control leaves a statement or block in the search.
#[derive(Clone)]
enum Flow<'k> {
    /// On to the next statement, with the values known there.
    Next(Env),
    /// Out of the innermost loop, or to its next iteration.
    Break(Env),
    Continue(Env),
    /// Every path traps, the first at this statement.
    Trap(&'k Stmt, &'k Trap),
    /// Some path returns, or the search cannot tell (too many steps, a loop the data bounds).
    Done,
}

/// Variables with a value known on every path the search is on.
type Env = HashMap<VarId, i64>;

/// One sample thread's search.
struct Thread<'k> {
    k: &'k Kernel,
    tid: [u32; 3],
    dim: [u32; 3],
    /// `gridDim`, when the launch fixes it (the search runs in block 0, which every grid has).
    grid: Option<[u32; 3]>,
    env: Env,
    steps: usize,
}

impl<'k> Thread<'k> {
    fn new(k: &'k Kernel, tid: [u32; 3], dim: [u32; 3], grid: Option<[u32; 3]>) -> Self {
        let env = k
            .vars
            .iter()
            .filter(|v| v.kind == VarKind::Param)
            .filter_map(|v| Some((v.id, *k.launch.params.get(&v.name)?)))
            .collect();
        Thread {
            k,
            tid,
            dim,
            grid,
            env,
            steps: 0,
        }
    }

    /// Runs a block from the current values.
    fn block(&mut self, b: &'k Block) -> Flow<'k> {
        for s in &b.stmts {
            self.steps += 1;
            if self.steps > STEPS {
                return Flow::Done;
            }
            match self.stmt(s) {
                Flow::Next(env) => self.env = env,
                other => return other,
            }
        }
        Flow::Next(self.env.clone())
    }

    fn stmt(&mut self, s: &'k Stmt) -> Flow<'k> {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    self.op(op);
                }
                Flow::Next(self.env.clone())
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => match self.eval(cond) {
                Some(c) if c != 0 => self.block(then_blk),
                Some(_) => self.block(else_blk),
                None => self.both(then_blk, else_blk),
            },
            StmtKind::Loop(l) => self.run_loop(l),
            StmtKind::Break => Flow::Break(self.env.clone()),
            StmtKind::Continue => Flow::Continue(self.env.clone()),
            StmtKind::Return { trap: Some(t) } => Flow::Trap(s, t),
            StmtKind::Return { trap: None } => Flow::Done,
            StmtKind::Barrier(..) => Flow::Next(self.env.clone()),
            // A thread for which the assumption is false is no thread of the kernel.
            StmtKind::Assume(e) => match self.eval(e) {
                Some(0) => Flow::Done,
                _ => Flow::Next(self.env.clone()),
            },
        }
    }

    /// A branch the data decides: every path traps when both sides' paths do.
    fn both(&mut self, a: &'k Block, b: &'k Block) -> Flow<'k> {
        let start = self.env.clone();
        let fa = self.block(a);
        self.env = start;
        let fb = self.block(b);
        match (fa, fb) {
            (Flow::Done, _) | (_, Flow::Done) => Flow::Done,
            // A side that traps leaves the other side's paths to decide.
            (Flow::Trap(..), f) | (f, Flow::Trap(..)) => f,
            (Flow::Next(x), Flow::Next(y)) => Flow::Next(meet(x, y)),
            (Flow::Break(x), Flow::Break(y)) => Flow::Break(meet(x, y)),
            (Flow::Continue(x), Flow::Continue(y)) => Flow::Continue(meet(x, y)),
            // Paths that leave by different edges: not followed.
            _ => Flow::Done,
        }
    }

    /// A loop run iteration by iteration while its condition is known; one the data bounds
    /// may run no iteration, so only what follows it can still trap on every path, and only
    /// when its body neither leaves the kernel nor traps.
    fn run_loop(&mut self, l: &'k Loop) -> Flow<'k> {
        let mut first = l.kind == LoopKind::DoWhile;
        loop {
            if !first {
                if let f @ (Flow::Trap(..) | Flow::Done) = self.stmts(&l.header) {
                    return f;
                }
                match self.eval(&l.cond) {
                    Some(0) => return Flow::Next(self.env.clone()),
                    Some(_) => {}
                    None => return self.unbounded(l),
                }
            }
            first = false;
            match self.block(&l.body) {
                Flow::Next(env) | Flow::Continue(env) => self.env = env,
                Flow::Break(env) => return Flow::Next(env),
                f => return f,
            }
            if let f @ (Flow::Trap(..) | Flow::Done) = self.stmts(&l.step) {
                return f;
            }
        }
    }

    /// Past a loop whose iterations the data decides: the values it assigns are forgotten.
    fn unbounded(&mut self, l: &'k Loop) -> Flow<'k> {
        let mut leaves = false;
        let mut assigned = Vec::new();
        crate::tree::for_each_stmt(&l.body, &mut |s: &Stmt| match &s.kind {
            StmtKind::Return { .. } => leaves = true,
            StmtKind::Basic(ops) => assigned.extend(ops.iter().filter_map(Op::assigned_var)),
            _ => {}
        });
        for s in l.header.iter().chain(&l.step) {
            if let StmtKind::Basic(ops) = &s.kind {
                assigned.extend(ops.iter().filter_map(Op::assigned_var));
            }
        }
        if leaves
            || l.header
                .iter()
                .chain(&l.step)
                .any(|s| !matches!(s.kind, StmtKind::Basic(_)))
        {
            return Flow::Done;
        }
        for v in assigned {
            self.env.remove(&v);
        }
        Flow::Next(self.env.clone())
    }

    /// Runs header or step statements (straight-line in practice).
    fn stmts(&mut self, ss: &'k [Stmt]) -> Flow<'k> {
        for s in ss {
            match self.stmt(s) {
                Flow::Next(env) => self.env = env,
                other => return other,
            }
        }
        Flow::Next(self.env.clone())
    }

    fn op(&mut self, op: &Op) {
        match op {
            Op::Assign(v, e) => match self.eval(e) {
                Some(x) => {
                    self.env.insert(*v, x);
                }
                None => {
                    self.env.remove(v);
                }
            },
            other => {
                if let Some(v) = other.assigned_var() {
                    self.env.remove(&v);
                }
            }
        }
    }

    /// The value of `e` in this thread, if the values known determine it.
    fn eval(&self, e: &Expr) -> Option<i64> {
        match e {
            Expr::Const(v, t) => Some(t.normalize(*v)),
            Expr::Builtin(b) => self.builtin(*b).map(i64::from),
            Expr::Var(v) => self.env.get(v).copied(),
            Expr::Un(op, t, x) => op.fold(*t, self.eval(x)?),
            Expr::Bin(BinOp::And, _, x, y) => match (self.eval(x), self.eval(y)) {
                (Some(0), _) | (_, Some(0)) => Some(0),
                (Some(_), Some(_)) => Some(1),
                _ => None,
            },
            Expr::Bin(BinOp::Or, _, x, y) => match (self.eval(x), self.eval(y)) {
                (Some(a), _) | (_, Some(a)) if a != 0 => Some(1),
                (Some(_), Some(_)) => Some(0),
                _ => None,
            },
            Expr::Bin(op, t, x, y) => op.fold(*t, self.eval(x)?, self.eval(y)?),
            Expr::Cast(t, x) => t.convert(x.ty(self.k), self.eval(x)?),
            Expr::Select(c, a, b) => match self.eval(c)? {
                0 => self.eval(b),
                _ => self.eval(a),
            },
            Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => None,
        }
    }

    fn builtin(&self, b: Builtin) -> Option<u32> {
        let d = |d: Dim| d as usize;
        match b {
            Builtin::ThreadIdx(x) => Some(self.tid[d(x)]),
            Builtin::BlockIdx(_) => Some(0),
            Builtin::BlockDim(x) => Some(self.dim[d(x)]),
            Builtin::GridDim(x) => self.grid.map(|g| g[d(x)]),
            Builtin::WarpSize => Some(32),
        }
    }
}

/// The values two paths agree on.
fn meet(mut a: Env, b: Env) -> Env {
    a.retain(|v, x| b.get(v) == Some(x));
    a
}
