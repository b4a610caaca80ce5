//! Hand-built kernels run through the executor.

use super::block::{BlockRun, GridState};
use super::*;
use crate::ir::*;

/// Builds kernels statement by statement; labels are allocated in call order.
struct Kb {
    vars: Vec<Var>,
    arrays: Vec<Array>,
    next: u32,
    launch: LaunchConfig,
}

impl Kb {
    fn new() -> Kb {
        Kb {
            vars: vec![],
            arrays: vec![],
            next: 0,
            launch: LaunchConfig::default(),
        }
    }
    fn var_of_kind(&mut self, name: &str, ty: ScalarTy, kind: VarKind) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(Var {
            id,
            name: name.into(),
            ty,
            kind,
        });
        id
    }
    fn var(&mut self, name: &str, ty: ScalarTy) -> VarId {
        self.var_of_kind(name, ty, VarKind::Local)
    }
    fn param(&mut self, name: &str, ty: ScalarTy) -> VarId {
        self.var_of_kind(name, ty, VarKind::Param)
    }
    fn array(&mut self, name: &str, space: Space) -> ArrayId {
        let id = ArrayId(self.arrays.len() as u32);
        let span = Span::DUMMY;
        self.arrays.push(Array {
            id,
            name: name.into(),
            space,
            elem_size: 4,
            dims: vec![None],
            span,
        });
        id
    }
    fn label(&mut self) -> Label {
        self.next += 1;
        Label(self.next - 1)
    }
    fn stmt(&mut self, kind: StmtKind) -> Stmt {
        Stmt {
            label: self.label(),
            span: Span::DUMMY,
            emit_after: true,
            kind,
        }
    }
    fn block(&mut self, stmts: Vec<Stmt>) -> Block {
        Block {
            label: self.label(),
            span: Span::DUMMY,
            braced: true,
            emit_start: true,
            stmts,
        }
    }
    fn basic(&mut self, ops: Vec<Op>) -> Stmt {
        self.stmt(StmtKind::Basic(ops))
    }
    fn assign(&mut self, v: VarId, e: Expr) -> Stmt {
        self.basic(vec![Op::Assign(v, e)])
    }
    fn if_(&mut self, cond: Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
        let (then_blk, else_blk) = (self.block(then), self.block(els));
        self.stmt(StmtKind::If {
            cond,
            then_blk,
            else_blk,
        })
    }
    fn sync(&mut self) -> Stmt {
        self.stmt(StmtKind::Barrier(Barrier::Block, BarrierSyntax::SyncThreads))
    }
    fn syncwarp(&mut self) -> Stmt {
        self.stmt(StmtKind::Barrier(Barrier::Warp, BarrierSyntax::SyncWarp))
    }
    fn loop_(&mut self, kind: LoopKind, header: Vec<Stmt>, cond: Expr, body: Vec<Stmt>, step: Vec<Stmt>) -> Stmt {
        let body = self.block(body);
        self.stmt(StmtKind::Loop(Loop {
            kind,
            header,
            cond,
            body,
            step,
            var: None,
        }))
    }
    /// `for (v = from; cond; v = v + 1) body` as two statements.
    fn for_(&mut self, v: VarId, from: i64, cond: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let init = self.assign(v, int(from));
        let step = self.assign(v, add(var(v), int(1)));
        vec![init, self.loop_(LoopKind::For, vec![], cond, body, vec![step])]
    }
    fn finish(self, stmts: Vec<Stmt>) -> Kernel {
        let mut me = self;
        let body = me.block(stmts);
        Kernel {
            name: "k".into(),
            files: vec![],
            span: Span::DUMMY,
            vars: me.vars,
            arrays: me.arrays,
            body,
            launch: me.launch,
            next_label: me.next,
        }
    }
}

fn tid() -> Expr {
    Expr::Cast(ScalarTy::I32, Box::new(Expr::Builtin(Builtin::ThreadIdx(Dim::X))))
}
fn tid_y() -> Expr {
    Expr::Cast(ScalarTy::I32, Box::new(Expr::Builtin(Builtin::ThreadIdx(Dim::Y))))
}
fn bid() -> Expr {
    Expr::Cast(ScalarTy::I32, Box::new(Expr::Builtin(Builtin::BlockIdx(Dim::X))))
}
fn int(v: i64) -> Expr {
    Expr::int(v)
}
fn var(v: VarId) -> Expr {
    Expr::Var(v)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Bin(op, ScalarTy::I32, Box::new(a), Box::new(b))
}
fn add(a: Expr, b: Expr) -> Expr {
    bin(BinOp::Add, a, b)
}
/// An `int` element access `arr[idx]`: byte offset `(long)idx * 4`.
fn at(arr: ArrayId, idx: Expr, kind: AccessKind) -> Access {
    let offset = Expr::Bin(
        BinOp::Mul,
        ScalarTy::I64,
        Box::new(Expr::Cast(ScalarTy::I64, Box::new(idx))),
        Box::new(Expr::Const(4, ScalarTy::I64)),
    );
    Access {
        array: arr,
        kind,
        offset,
        size: 4,
        span: Span::DUMMY,
    }
}
fn write(arr: ArrayId, idx: Expr, val: Expr) -> Op {
    Op::Write(at(arr, idx, AccessKind::Write), val)
}
fn read(dst: VarId, arr: ArrayId, idx: Expr) -> Op {
    Op::Read(Some(dst), at(arr, idx, AccessKind::Read))
}

fn cfg(threads: u32) -> ExecConfig {
    ExecConfig::new([threads, 1, 1], [1, 1, 1])
}
fn run(k: &Kernel, threads: u32) -> ExecReport {
    execute(k, &cfg(threads)).expect("execution succeeds")
}
fn race(a: Label, b: Label, arr: ArrayId) -> ExecRace {
    ExecRace {
        first: a,
        second: b,
        array: arr,
        inter_block: false,
    }
}
/// Final variable values of every thread of block 0.
fn final_vars(k: &Kernel, c: &ExecConfig) -> Vec<Vec<Option<u64>>> {
    let mut grid = GridState::new();
    let mut b = BlockRun::new(k, c, &mut grid, [0, 0, 0], 0);
    b.run().expect("execution succeeds");
    b.threads.iter().map(|t| t.vars.clone()).collect()
}

/// `s[tid] = tid; [sync;] x = s[(tid + 1) % 64]`.
fn neighbour_kernel(with_sync: bool) -> (Kernel, Label, Label, ArrayId) {
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let w = kb.basic(vec![write(s, tid(), tid())]);
    let mut body = vec![w.clone()];
    if with_sync {
        body.push(kb.sync());
    }
    let r = kb.basic(vec![read(x, s, bin(BinOp::Rem, add(tid(), int(1)), int(64)))]);
    body.push(r.clone());
    (kb.finish(body), w.label, r.label, s)
}

#[test]
fn exec_straight_line_race() {
    let (k, w, r, s) = neighbour_kernel(false);
    let rep = run(&k, 64);
    assert_eq!(rep.races, BTreeSet::from([race(w, r, s)]));
    assert!(rep.divergent_barriers.is_empty());
    assert!(rep.steps >= 2);
}

#[test]
fn exec_barrier_removes_race() {
    let (k, _, _, _) = neighbour_kernel(true);
    assert_eq!(
        run(&k, 64),
        ExecReport {
            steps: 3,
            accesses: 128,
            ..ExecReport::default()
        }
    );
}

/// Tree reduction over `s` with 64 threads; returns the kernel and the read and write labels
/// of the loop body.
fn reduction(with_loop_sync: bool) -> (Kernel, Label, Label, ArrayId) {
    let mut kb = Kb::new();
    let g = kb.array("g", Space::Global);
    let s = kb.array("s", Space::Shared);
    let (t, a, b) = (
        kb.var("t", ScalarTy::Opaque),
        kb.var("a", ScalarTy::Opaque),
        kb.var("b", ScalarTy::Opaque),
    );
    let stride = kb.var("stride", ScalarTy::I32);
    let load = kb.basic(vec![read(t, g, tid()), write(s, tid(), var(t))]);
    let sync = kb.sync();
    let init = kb.assign(stride, int(32));
    let rd = kb.basic(vec![read(a, s, tid()), read(b, s, add(tid(), var(stride)))]);
    let sum = Expr::Opaque(ScalarTy::Opaque, vec![var(a), var(b)]);
    let wr = kb.basic(vec![write(s, tid(), sum)]);
    let guarded = kb.if_(bin(BinOp::Lt, tid(), var(stride)), vec![rd.clone(), wr.clone()], vec![]);
    let mut body = vec![guarded];
    if with_loop_sync {
        body.push(kb.sync());
    }
    let step = kb.assign(stride, bin(BinOp::Shr, var(stride), int(1)));
    let lp = kb.loop_(
        LoopKind::For,
        vec![],
        bin(BinOp::Gt, var(stride), int(0)),
        body,
        vec![step],
    );
    let out = kb.basic(vec![read(t, s, int(0)), write(g, bid(), var(t))]);
    let fin = kb.if_(bin(BinOp::Eq, tid(), int(0)), vec![out], vec![]);
    (kb.finish(vec![load, sync, init, lp, fin]), rd.label, wr.label, s)
}

#[test]
fn exec_reduction_with_barrier_is_clean() {
    let (k, ..) = reduction(true);
    let rep = run(&k, 64);
    assert!(rep.races.is_empty(), "{:?}", rep.races);
    assert!(rep.divergent_barriers.is_empty());
}

#[test]
fn exec_reduction_without_barrier_races() {
    let (k, rd, wr, s) = reduction(false);
    assert_eq!(run(&k, 64).races, BTreeSet::from([race(rd, wr, s)]));
}

#[test]
fn exec_reduction_256_threads_is_fast() {
    let (k, ..) = reduction(true);
    let start = std::time::Instant::now();
    let rep = execute(&k, &ExecConfig::new([256, 1, 1], [2, 1, 1])).unwrap();
    let elapsed = start.elapsed();
    // Block 1 stores g[1] while block 0 loads g[tid]: the only race, and an inter-block one.
    let (load, out) = (k.body.stmts[0].label, k.body.stmts[4].label);
    let StmtKind::If { then_blk, .. } = &k.body.stmts[4].kind else {
        panic!("fin is an if")
    };
    let store = then_blk.stmts[0].label;
    assert_ne!(out, store);
    let want = ExecRace {
        first: load,
        second: store,
        array: ArrayId(0),
        inter_block: true,
    };
    assert_eq!(rep.races, BTreeSet::from([want]));
    assert!(elapsed.as_secs() < 5, "took {elapsed:?}");
}

#[test]
fn exec_divergent_barrier_under_thread_condition() {
    let mut kb = Kb::new();
    let b = kb.sync();
    let lb = b.label;
    let cond = kb.if_(bin(BinOp::Lt, tid(), int(16)), vec![b], vec![]);
    let k = kb.finish(vec![cond]);
    assert_eq!(run(&k, 32).divergent_barriers, BTreeSet::from([lb]));
    assert!(run(&k, 16).divergent_barriers.is_empty(), "all threads take the branch");
}

#[test]
fn exec_early_return_then_barrier() {
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let ret = kb.stmt(StmtKind::Return { trap: None });
    let exit = kb.if_(bin(BinOp::Ge, tid(), int(32)), vec![ret], vec![]);
    let w = kb.basic(vec![write(s, tid(), int(1))]);
    let b = kb.sync();
    let r = kb.basic(vec![read(x, s, bin(BinOp::BitXor, tid(), int(1)))]);
    let k = kb.finish(vec![exit, w, b, r]);
    let rep = run(&k, 64);
    assert!(rep.divergent_barriers.is_empty(), "exited threads are not waited for");
    assert!(rep.races.is_empty());
    let vars = final_vars(&k, &cfg(64));
    assert!(vars[3][x.0 as usize].is_some() && vars[40][x.0 as usize].is_none());
}

#[test]
fn exec_break_under_thread_condition_diverges() {
    let mut kb = Kb::new();
    let i = kb.var("i", ScalarTy::I32);
    let brk = kb.stmt(StmtKind::Break);
    let cond = kb.if_(bin(BinOp::Eq, tid(), var(i)), vec![brk], vec![]);
    let b = kb.sync();
    let lb = b.label;
    let lp = kb.for_(i, 0, bin(BinOp::Lt, var(i), int(4)), vec![cond, b]);
    let k = kb.finish(lp);
    assert_eq!(run(&k, 32).divergent_barriers, BTreeSet::from([lb]));
}

#[test]
fn exec_uniform_break_and_continue() {
    let mut kb = Kb::new();
    let (i, n, after) = (
        kb.var("i", ScalarTy::I32),
        kb.var("n", ScalarTy::I32),
        kb.var("after", ScalarTy::I32),
    );
    let init_n = kb.assign(n, int(0));
    let brk = kb.stmt(StmtKind::Break);
    let stop = kb.if_(bin(BinOp::Eq, var(i), int(7)), vec![brk], vec![]);
    let cont = kb.stmt(StmtKind::Continue);
    let skip_even = kb.if_(
        bin(BinOp::Eq, bin(BinOp::Rem, var(i), int(2)), int(0)),
        vec![cont],
        vec![],
    );
    let count = kb.assign(n, add(var(n), int(1)));
    let b = kb.sync();
    let mut stmts = vec![init_n];
    stmts.extend(kb.for_(i, 0, bin(BinOp::Lt, var(i), int(100)), vec![stop, skip_even, count, b]));
    stmts.push(kb.assign(after, add(var(i), tid())));
    let k = kb.finish(stmts);
    assert!(run(&k, 8).divergent_barriers.is_empty());
    let vars = final_vars(&k, &cfg(8));
    for (t, v) in vars.iter().enumerate() {
        assert_eq!(v[i.0 as usize], Some(7), "break leaves i at 7");
        assert_eq!(v[n.0 as usize], Some(3), "odd i below 7: 1, 3, 5");
        assert_eq!(v[after.0 as usize], Some(7 + t as u64), "code after the loop runs");
    }
}

#[test]
fn exec_thread_dependent_trip_counts() {
    let mut kb = Kb::new();
    let (i, n) = (kb.var("i", ScalarTy::I32), kb.var("n", ScalarTy::I32));
    let init = kb.assign(n, int(0));
    let count = kb.assign(n, add(var(n), int(1)));
    let mut stmts = vec![init];
    stmts.extend(kb.for_(i, 0, bin(BinOp::Lt, var(i), tid()), vec![count]));
    let k = kb.finish(stmts);
    let vars = final_vars(&k, &cfg(5));
    let ns: Vec<_> = vars.iter().map(|v| v[n.0 as usize]).collect();
    assert_eq!(ns, (0..5).map(Some).collect::<Vec<_>>());
}

#[test]
fn exec_do_while_runs_body_first() {
    let mut kb = Kb::new();
    let (n, m) = (kb.var("n", ScalarTy::I32), kb.var("m", ScalarTy::I32));
    let (i1, i2) = (kb.assign(n, int(0)), kb.assign(m, int(0)));
    let inc_n = kb.assign(n, add(var(n), int(1)));
    let dw = kb.loop_(LoopKind::DoWhile, vec![], Expr::bool(false), vec![inc_n], vec![]);
    let inc_m = kb.assign(m, add(var(m), int(1)));
    let wh = kb.loop_(LoopKind::While, vec![], Expr::bool(false), vec![inc_m], vec![]);
    let k = kb.finish(vec![i1, i2, dw, wh]);
    let vars = final_vars(&k, &cfg(1));
    assert_eq!((vars[0][n.0 as usize], vars[0][m.0 as usize]), (Some(1), Some(0)));
}

#[test]
fn exec_loop_header_reads_race_with_body_writes() {
    // s[0] = 0 (thread 0); sync; while (c = s[0], c < 5) { if (tid == 0) s[0] = c + 1; sync; }
    let build = |sync_at_body_start: bool| {
        let mut kb = Kb::new();
        let s = kb.array("s", Space::Shared);
        let c = kb.var("c", ScalarTy::I32);
        let zero = kb.basic(vec![write(s, int(0), int(0))]);
        let init = kb.if_(bin(BinOp::Eq, tid(), int(0)), vec![zero], vec![]);
        let b0 = kb.sync();
        let head = kb.basic(vec![read(c, s, int(0))]);
        let mut body = vec![];
        if sync_at_body_start {
            body.push(kb.sync());
        }
        let w = kb.basic(vec![write(s, int(0), add(var(c), int(1)))]);
        let lw = w.label;
        body.push(kb.if_(bin(BinOp::Eq, tid(), int(0)), vec![w], vec![]));
        body.push(kb.sync());
        let lh = head.label;
        let lp = kb.loop_(
            LoopKind::While,
            vec![head],
            bin(BinOp::Lt, var(c), int(5)),
            body,
            vec![],
        );
        (kb.finish(vec![init, b0, lp]), lh, lw, s)
    };
    let (k, lh, lw, s) = build(false);
    assert_eq!(run(&k, 4).races, BTreeSet::from([race(lh, lw, s)]));
    let (k, ..) = build(true);
    assert!(run(&k, 4).races.is_empty());
}

#[test]
fn exec_atomics_do_not_race_with_each_other() {
    let build = |sync_between: bool| {
        let mut kb = Kb::new();
        let s = kb.array("s", Space::Shared);
        let (old, x) = (kb.var("old", ScalarTy::I32), kb.var("x", ScalarTy::I32));
        let a = kb.basic(vec![Op::Atomic(
            Some(old),
            at(s, int(0), AccessKind::Atomic),
            AtomicOp::Increment(1),
        )]);
        let mut stmts = vec![a.clone()];
        if sync_between {
            stmts.push(kb.sync());
        }
        let r = kb.basic(vec![read(x, s, int(0))]);
        stmts.push(r.clone());
        (kb.finish(stmts), a.label, r.label, s, old)
    };
    let (k, la, lr, s, old) = build(false);
    assert_eq!(run(&k, 64).races, BTreeSet::from([race(la, lr, s)]));
    let (k, ..) = build(true);
    assert!(run(&k, 64).races.is_empty());
    // Atomics serialize: every thread saw a different old value (atomicAdd(p, 1)).
    let vars = final_vars(&k, &cfg(64));
    let olds: BTreeSet<_> = vars.iter().map(|v| v[old.0 as usize]).collect();
    assert_eq!(olds.len(), 64);
}

/// `s[tid] = 1; [__syncwarp();] x = s[(tid + shift) % threads]`.
fn warp_kernel(with_syncwarp: bool, shift: i64, threads: i64, warp_sync: Option<u32>) -> Kernel {
    let mut kb = Kb::new();
    kb.launch.warp_sync = warp_sync;
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let mut stmts = vec![kb.basic(vec![write(s, tid(), int(1))])];
    if with_syncwarp {
        stmts.push(kb.syncwarp());
    }
    stmts.push(kb.basic(vec![read(x, s, bin(BinOp::Rem, add(tid(), int(shift)), int(threads)))]));
    kb.finish(stmts)
}

#[test]
fn exec_syncwarp_orders_only_its_warp() {
    assert!(run(&warp_kernel(true, 1, 32, None), 32).races.is_empty());
    assert_eq!(run(&warp_kernel(false, 1, 32, None), 32).races.len(), 1);
    assert_eq!(run(&warp_kernel(true, 32, 64, None), 64).races.len(), 1, "other warp");
    // Lanes 31 and 63 read the next warp's element: only those pairs race.
    assert_eq!(run(&warp_kernel(true, 1, 64, None), 64).races.len(), 1);
    assert!(run(&warp_kernel(true, 1, 64, None), 64).divergent_barriers.is_empty());
}

#[test]
fn exec_warp_sync_mode() {
    assert!(run(&warp_kernel(false, 1, 32, Some(32)), 32).races.is_empty());
    assert_eq!(
        run(&warp_kernel(false, 32, 64, Some(32)), 64).races.len(),
        1,
        "across groups"
    );
    assert_eq!(
        run(&warp_kernel(false, 1, 32, Some(16)), 32).races.len(),
        1,
        "lane 15 reads 16"
    );
    // One store from every lane to the same element still conflicts in lock step.
    let mut kb = Kb::new();
    kb.launch.warp_sync = Some(32);
    let s = kb.array("s", Space::Shared);
    let w = kb.basic(vec![write(s, int(0), tid())]);
    let lw = w.label;
    let k = kb.finish(vec![w]);
    assert_eq!(run(&k, 32).races, BTreeSet::from([race(lw, lw, s)]));
}

#[test]
fn exec_inter_block_race_on_global_memory() {
    let build = |idx: Expr, space: Space| {
        let mut kb = Kb::new();
        let g = kb.array("g", space);
        let w = kb.basic(vec![write(g, idx, bid())]);
        let lw = w.label;
        (kb.finish(vec![w]), lw, g)
    };
    let two = ExecConfig::new([32, 1, 1], [2, 1, 1]);
    let (k, lw, g) = build(tid(), Space::Global);
    let want = ExecRace {
        first: lw,
        second: lw,
        array: g,
        inter_block: true,
    };
    assert_eq!(execute(&k, &two).unwrap().races, BTreeSet::from([want]));
    let (k, ..) = build(add(bin(BinOp::Mul, bid(), int(32)), tid()), Space::Global);
    assert!(execute(&k, &two).unwrap().races.is_empty());
    let (k, ..) = build(tid(), Space::Shared);
    assert!(
        execute(&k, &two).unwrap().races.is_empty(),
        "each block has its own shared memory"
    );
}

#[test]
fn exec_two_dimensional_transpose() {
    let build = |with_sync: bool| {
        let mut kb = Kb::new();
        let s = kb.array("s", Space::Shared);
        let x = kb.var("x", ScalarTy::I32);
        let row_major = |a: Expr, b: Expr| add(bin(BinOp::Mul, a, int(16)), b);
        let mut stmts = vec![kb.basic(vec![write(s, row_major(tid_y(), tid()), int(1))])];
        if with_sync {
            stmts.push(kb.sync());
        }
        stmts.push(kb.basic(vec![read(x, s, row_major(tid(), tid_y()))]));
        kb.finish(stmts)
    };
    let c = ExecConfig::new([16, 16, 1], [1, 1, 1]);
    assert_eq!(execute(&build(false), &c).unwrap().races.len(), 1);
    assert!(execute(&build(true), &c).unwrap().races.is_empty());
}

#[test]
fn exec_wrap_around_arithmetic() {
    let u8t = ScalarTy::Int { bits: 8, signed: false };
    let mut kb = Kb::new();
    let (a, b, c) = (kb.var("a", u8t), kb.var("b", ScalarTy::I32), kb.var("c", ScalarTy::U32));
    let stmts = vec![
        kb.assign(a, Expr::Const(255, u8t)),
        kb.assign(
            a,
            Expr::Bin(BinOp::Add, u8t, Box::new(var(a)), Box::new(Expr::Const(1, u8t))),
        ),
        kb.assign(b, int(i32::MAX as i64)),
        kb.assign(b, add(var(b), int(1))),
        kb.assign(
            c,
            Expr::Cast(
                ScalarTy::U32,
                Box::new(Expr::Const(-1, ScalarTy::Int { bits: 8, signed: true })),
            ),
        ),
    ];
    let k = kb.finish(stmts);
    let v = &final_vars(&k, &cfg(1))[0];
    assert_eq!(v[a.0 as usize], Some(0));
    assert_eq!(v[b.0 as usize].map(|x| x as i64), Some(i32::MIN as i64));
    assert_eq!(v[c.0 as usize], Some(u32::MAX as u64));
}

#[test]
fn exec_wrap_around_decides_a_race() {
    // s[tid] = 1; x = s[(unsigned)tid + 0xFFFFFFFF]: with 32-bit wrap-around that is s[tid - 1].
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let w = kb.basic(vec![write(s, tid(), int(1))]);
    let minus_one = Expr::Bin(
        BinOp::Add,
        ScalarTy::U32,
        Box::new(Expr::Builtin(Builtin::ThreadIdx(Dim::X))),
        Box::new(Expr::Const(0xFFFF_FFFF, ScalarTy::U32)),
    );
    let r = kb.basic(vec![read(x, s, minus_one)]);
    let (lw, lr) = (w.label, r.label);
    let k = kb.finish(vec![w, r]);
    assert_eq!(run(&k, 8).races, BTreeSet::from([race(lw, lr, s)]));
}

#[test]
fn exec_division_by_zero_is_an_error() {
    let mut kb = Kb::new();
    let x = kb.var("x", ScalarTy::I32);
    let d = kb.assign(x, bin(BinOp::Div, int(10), bin(BinOp::Sub, tid(), tid())));
    let ld = d.label;
    let k = kb.finish(vec![d]);
    assert_eq!(execute(&k, &cfg(4)), Err(ExecError::DivByZero(ld)));
}

#[test]
fn exec_guarded_division_is_not_an_error() {
    let mut kb = Kb::new();
    let x = kb.var("x", ScalarTy::I32);
    let nonzero = bin(BinOp::Ne, tid(), int(0));
    let sel = Expr::Select(
        Box::new(nonzero.clone()),
        Box::new(bin(BinOp::Div, int(10), tid())),
        Box::new(int(0)),
    );
    let and = bin(
        BinOp::And,
        nonzero.clone(),
        bin(BinOp::Gt, bin(BinOp::Div, int(10), tid()), int(1)),
    );
    let s1 = kb.assign(x, sel);
    let s2 = kb.assign(x, Expr::Cast(ScalarTy::I32, Box::new(and)));
    let d = kb.assign(x, bin(BinOp::Div, int(10), tid()));
    let s3 = kb.if_(nonzero, vec![d], vec![]);
    let k = kb.finish(vec![s1, s2, s3]);
    assert!(execute(&k, &cfg(4)).is_ok());
}

#[test]
fn exec_infinite_loop_hits_step_limit() {
    let mut kb = Kb::new();
    let lp = kb.loop_(LoopKind::While, vec![], Expr::bool(true), vec![], vec![]);
    let k = kb.finish(vec![lp]);
    let mut c = cfg(32);
    c.max_steps = 10_000;
    assert_eq!(execute(&k, &c), Err(ExecError::StepLimit));
}

#[test]
fn exec_parameters() {
    let mut kb = Kb::new();
    let (n, f, x) = (
        kb.param("n", ScalarTy::I32),
        kb.param("f", ScalarTy::Opaque),
        kb.var("x", ScalarTy::I32),
    );
    let s = kb.assign(x, add(var(n), int(1)));
    let g = kb.array("g", Space::Global);
    let w = kb.basic(vec![write(g, tid(), var(f))]);
    let k = kb.finish(vec![w, s]);
    assert_eq!(execute(&k, &cfg(2)), Err(ExecError::MissingParam("n".into())));
    let mut c = cfg(2);
    c.params.insert("n".into(), 41);
    assert_eq!(final_vars(&k, &c)[1][x.0 as usize], Some(42));
}

#[test]
fn exec_named_barriers_with_counts_are_unsupported() {
    let mut kb = Kb::new();
    let nb = Barrier::NamedSync {
        id: int(1),
        count: Some(int(64)),
    };
    let b = kb.stmt(StmtKind::Barrier(nb, BarrierSyntax::Asm));
    let never = kb.if_(Expr::bool(false), vec![b], vec![]);
    let k = kb.finish(vec![never]);
    assert!(matches!(execute(&k, &cfg(64)), Err(ExecError::Unsupported(_))));
    // `bar.sync 0` without a count is an ordinary block-wide barrier.
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let w = kb.basic(vec![write(s, tid(), int(1))]);
    let b = kb.stmt(StmtKind::Barrier(
        Barrier::NamedSync {
            id: int(0),
            count: None,
        },
        BarrierSyntax::Asm,
    ));
    let r = kb.basic(vec![read(x, s, bin(BinOp::BitXor, tid(), int(1)))]);
    let k = kb.finish(vec![w, b, r]);
    assert!(run(&k, 64).races.is_empty());
}

#[test]
fn exec_assume_drops_threads() {
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let a = kb.stmt(StmtKind::Assume(bin(BinOp::Lt, tid(), int(16))));
    let w = kb.basic(vec![write(s, bin(BinOp::Rem, tid(), int(16)), int(1))]);
    let b = kb.sync();
    let k = kb.finish(vec![a, w, b]);
    let rep = run(&k, 32);
    assert!(rep.assume_failed);
    assert!(rep.races.is_empty(), "threads 16.. are infeasible");
    assert!(rep.divergent_barriers.is_empty());
}

#[test]
fn exec_bad_configs_are_errors() {
    let k = Kb::new().finish(vec![]);
    assert!(matches!(execute(&k, &cfg(0)), Err(ExecError::BadConfig(_))));
    assert!(matches!(execute(&k, &cfg(2048)), Err(ExecError::BadConfig(_))));
    assert!(matches!(
        execute(&k, &ExecConfig::new([1, 1, 1], [1000, 1, 1])),
        Err(ExecError::BadConfig(_))
    ));
}

#[test]
fn exec_fifty_iterations_of_256_threads() {
    // for (i = 0; i < 50; i++) { s[(tid + i) % 256] = i; [sync;] x = s[(tid + i + 1) % 256]; [sync;] }
    let build = |with_sync: bool| {
        let mut kb = Kb::new();
        let s = kb.array("s", Space::Shared);
        let (i, x) = (kb.var("i", ScalarTy::I32), kb.var("x", ScalarTy::I32));
        let idx = |off: i64| bin(BinOp::Rem, add(add(tid(), var(i)), int(off)), int(256));
        let mut body = vec![kb.basic(vec![write(s, idx(0), var(i))])];
        if with_sync {
            body.push(kb.sync());
        }
        body.push(kb.basic(vec![read(x, s, idx(1))]));
        if with_sync {
            body.push(kb.sync());
        }
        let stmts = kb.for_(i, 0, bin(BinOp::Lt, var(i), int(50)), body);
        kb.finish(stmts)
    };
    let start = std::time::Instant::now();
    let clean = run(&build(true), 256);
    let racy = run(&build(false), 256);
    let elapsed = start.elapsed();
    eprintln!("two runs of 256 threads x 50 iterations: {elapsed:?}");
    assert!(clean.races.is_empty());
    // RAW within an iteration, and WAW across iterations: thread t-1 in iteration i+1
    // stores where thread t stored in iteration i.
    let pairs: Vec<_> = racy.races.iter().map(|r| (r.first.0, r.second.0)).collect();
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    assert!(pairs.iter().any(|(a, b)| a == b) && pairs.iter().any(|(a, b)| a < b));
    assert!(elapsed.as_secs() < 5, "took {elapsed:?}");
}

#[test]
fn exec_witness_names_the_threads_in_label_order() {
    // x = s[(tid + 1) % 64] comes after s[tid] = tid: the witness's first thread wrote.
    let (k, w, r, s) = neighbour_kernel(false);
    let rep = run(&k, 64);
    let wit = rep.witnesses[&race(w, r, s)];
    let [writer, reader] = wit.threads;
    assert_eq!(wit.byte_offset % 4, 0);
    assert_eq!(writer.thread[0] as u64, wit.byte_offset / 4);
    assert_eq!((reader.thread[0] + 1) % 64, writer.thread[0]);
    // In a 2-D block the witness has 2-D coordinates.
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let w = kb.basic(vec![write(s, int(0), tid_y())]);
    let lw = w.label;
    let k = kb.finish(vec![w]);
    let rep = execute(&k, &ExecConfig::new([4, 4, 1], [1, 1, 1])).unwrap();
    let [a, b] = rep.witnesses[&race(lw, lw, s)].threads;
    assert_ne!(a, b);
    assert!(a.thread.iter().chain(&b.thread).all(|&c| c < 4));
}

#[test]
fn exec_partial_syncwarp_orders_nothing() {
    // s[tid] = 1; if (tid < 16) __syncwarp(); x = s[tid ^ 1]
    let mut kb = Kb::new();
    let s = kb.array("s", Space::Shared);
    let x = kb.var("x", ScalarTy::I32);
    let w = kb.basic(vec![write(s, tid(), int(1))]);
    let sw = kb.syncwarp();
    let lsw = sw.label;
    let half = kb.if_(bin(BinOp::Lt, tid(), int(16)), vec![sw], vec![]);
    let r = kb.basic(vec![read(x, s, bin(BinOp::BitXor, tid(), int(1)))]);
    let k = kb.finish(vec![w, half, r]);
    let rep = run(&k, 32);
    assert_eq!(rep.divergent_warp_barriers, BTreeSet::from([lsw]));
    assert_eq!(rep.races.len(), 1);
    assert!(rep.divergent_barriers.is_empty());
}

/// `x = vote(tid < 5)` right after a barrier, then `g[tid] = x`: every thread gets the vote.
fn vote_values(kind: VoteKind) -> Vec<u64> {
    let mut kb = Kb::new();
    let x = kb.var("x", ScalarTy::I32);
    let sync = kb.sync();
    let pred = bin(BinOp::Lt, tid(), int(5));
    let vote = kb.assign(x, Expr::Vote(kind, Box::new(pred)));
    let k = kb.finish(vec![sync, vote]);
    final_vars(&k, &cfg(64))
        .iter()
        .map(|vars| vars[x.0 as usize].expect("assigned"))
        .collect()
}

#[test]
fn exec_votes_combine_every_thread_that_reached_the_barrier() {
    assert!(vote_values(VoteKind::Or).iter().all(|&v| v == 1));
    assert!(vote_values(VoteKind::And).iter().all(|&v| v == 0));
    assert!(vote_values(VoteKind::Count).iter().all(|&v| v == 5));
}

/// `g[0] = u` by every thread, `u` never assigned (or an `Expr::Unknown`): a race whose
/// stores differ (not benign).
#[test]
fn exec_uninitialized_and_unknown_values_differ_per_thread() {
    for unknown in [false, true] {
        let mut kb = Kb::new();
        let g = kb.array("g", Space::Global);
        let u = kb.var("u", ScalarTy::I32);
        let value = if unknown { Expr::Unknown(ScalarTy::I32) } else { var(u) };
        let w = kb.basic(vec![write(g, int(0), value)]);
        let k = kb.finish(vec![w.clone()]);
        let rep = run(&k, 8);
        let r = race(w.label, w.label, g);
        assert!(rep.races.contains(&r), "{rep:?}");
        assert!(
            !rep.benign.contains(&r),
            "stores of an indeterminate value are not benign"
        );
    }
}
