//! The emulation of one warp: its state (lanes, geometry, unknowns) and the statements that
//! contain a barrier, run warp-wide with conditions that must agree in every lane; loops and
//! barriers themselves. Statements without barriers run lane by lane ([`super::lane`]);
//! async-pipeline ops and spin loops are in [`super::async_ops`].

use super::super::pipeline::{AgentIdx, BarIdx, Mbarriers};
use super::super::value::{Blame, Origin, Sym, Unknowns, Val};
use super::trace::*;
use crate::ir::*;
use crate::report::{Divergence, Inconclusive, SyncDefect, SyncDefectKind};
use crate::tree::visit_stmt;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Iterations after which a barrier-free loop is abstracted instead of unrolled (per lane).
pub(super) const MAX_LANE_ITERS: u64 = 1 << 16;
/// Iterations after which a loop with barriers is declared non-terminating for the check.
pub(super) const MAX_WARP_ITERS: u64 = 1 << 20;
/// Upper bound on emulated memory accesses (keeps memory bounded).
pub(super) const MAX_ACCESSES: u64 = 60_000_000;

/// Emulates every warp of the block `block_dim` of kernel `k`.
pub(crate) fn emulate(k: &Kernel, block_dim: [u32; 3]) -> Skeleton {
    let threads: u32 = block_dim.iter().product();
    let warps = threads.div_ceil(WARP);
    let mut sk = Skeleton::default();
    let geo = Geo::new(k, block_dim, &mut sk.unknowns);
    let params: Vec<Option<Val>> = k
        .vars
        .iter()
        .map(|v| match v.kind {
            VarKind::Param => Some(match k.launch.params.get(&v.name) {
                Some(&x) => Val::K(v.ty.normalize(x)),
                None => sk.unknowns.fresh(Origin::Param(v.name.clone()), v.ty),
            }),
            _ => None,
        })
        .collect();
    let is_barrier = |s: &Stmt| matches!(s.kind, StmtKind::Barrier(..));
    let is_async = |s: &Stmt| matches!(&s.kind, StmtKind::Basic(ops) if ops.iter().any(Op::is_async));
    let is_test = |s: &Stmt| matches!(&s.kind, StmtKind::Basic(ops) if ops.iter().any(|o| matches!(o, Op::Mbarrier(_, MbarOp::Test { .. }))));
    let mut ctx = Ctx {
        k,
        bar: containing(&k.body, &|s| is_barrier(s) || is_async(s)),
        sync: containing(&k.body, &is_barrier),
        spin: containing(&k.body, &is_test),
        geo,
        loops: HashMap::new(),
        bad: HashSet::new(),
        accesses: 0,
        warps,
        mbars: Mbarriers::default(),
        agents: vec![],
        tokens: vec![],
        facts: vec![],
    };
    for w in 0..warps {
        let mut em = Emu {
            ctx: &mut ctx,
            unk: &mut sk.unknowns,
            trace: WarpTrace::default(),
            lanes: vec![],
            div_src: None,
            defects: &mut sk.defects,
            w,
            test_mode: TestMode::Refuse,
            probe: None,
        };
        for i in 0..WARP.min(threads - w * WARP) {
            let l = w * WARP + i;
            let tid = [
                l % block_dim[0],
                (l / block_dim[0]) % block_dim[1],
                l / (block_dim[0] * block_dim[1]),
            ];
            let env = k
                .vars
                .iter()
                .zip(&params)
                .map(|(v, p)| {
                    p.clone()
                        .unwrap_or_else(|| em.unk.fresh(Origin::Var(v.name.clone()), v.ty))
                })
                .collect();
            em.trace.lanes.push(tid);
            em.lanes.push(Lane {
                tid,
                env,
                flow: Flow::Normal,
                preds: vec![],
                maybe_exit: None,
                maybe_jump: None,
                open_copies: vec![],
                groups: VecDeque::new(),
                copies: vec![],
                bulk_open: vec![],
                bulk_groups: VecDeque::new(),
                wgmma_open: vec![],
                wgmma_groups: VecDeque::new(),
                tx_budget: vec![],
            });
        }
        let r = em.warp_block(&k.body);
        sk.warps.push(em.trace);
        if let Err(stop) = r {
            sk.stops.push(stop);
        }
    }
    sk.mbars = ctx.mbars;
    sk.agents = ctx.agents;
    sk.tokens = ctx.tokens;
    sk.facts = ctx.facts;
    sk
}

/// Whether a loop runs its body exactly once (`do { ... } while (false)` with no header).
pub(super) fn runs_once(lp: &Loop) -> bool {
    lp.kind == LoopKind::DoWhile && lp.header.is_empty() && lp.step.is_empty() && lp.cond.as_const() == Some(0)
}

/// Whether `b` holds (at any depth) a loop among the `spin` candidates.
pub(super) fn has_spin_candidate(b: &Block, spin: &HashSet<Label>) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Loop(_) if spin.contains(&s.label) => true,
        StmtKind::Loop(l) => has_spin_candidate(&l.body, spin),
        StmtKind::If { then_blk, else_blk, .. } => {
            has_spin_candidate(then_blk, spin) || has_spin_candidate(else_blk, spin)
        }
        _ => false,
    })
}

/// Labels of statements that are or contain a statement `pred` holds for.
pub(super) fn containing(b: &Block, pred: &dyn Fn(&Stmt) -> bool) -> HashSet<Label> {
    pub(super) fn walk(s: &Stmt, pred: &dyn Fn(&Stmt) -> bool, out: &mut HashSet<Label>) -> bool {
        let mut has = pred(s);
        match &s.kind {
            StmtKind::If { then_blk, else_blk, .. } => {
                for c in then_blk.stmts.iter().chain(&else_blk.stmts) {
                    has |= walk(c, pred, out);
                }
            }
            StmtKind::Loop(Loop { header, body, step, .. }) => {
                for c in header.iter().chain(&body.stmts).chain(step) {
                    has |= walk(c, pred, out);
                }
            }
            _ => {}
        }
        if has {
            out.insert(s.label);
        }
        has
    }
    let mut out = HashSet::new();
    for s in &b.stmts {
        walk(s, pred, &mut out);
    }
    out
}

/// A lane's path predicates and possible early exits, saved around a spin-loop probe.
pub(super) type LaneFlowState = (Vec<Rc<Sym>>, Option<(Span, Blame)>, Option<(Span, Blame)>);

/// An access as the trace records it.
pub(super) enum Recorded {
    Conc(ConcAccess),
    Sym(SymAccess),
}

/// The bit mask of lanes.
pub(super) fn mask_of(lanes: &[usize]) -> u32 {
    lanes.iter().fold(0u32, |m, &l| m | (1 << l))
}

/// Thread-geometry values shared by all lanes.
pub(super) struct Geo {
    pub(super) block_dim: [u32; 3],
    pub(super) block_idx: [Val; 3],
    pub(super) grid_dim: [Val; 3],
}

impl Geo {
    pub(super) fn new(k: &Kernel, block_dim: [u32; 3], unk: &mut Unknowns) -> Geo {
        let names = ["x", "y", "z"];
        let block_idx = names.map(|d| unk.fresh(Origin::Builtin(format!("blockIdx.{d}")), ScalarTy::U32));
        let grid_dim = match k.launch.grid_dim {
            Some(g) => g.map(|x| Val::K(x as i64)),
            None => names.map(|d| unk.fresh(Origin::Builtin(format!("gridDim.{d}")), ScalarTy::U32)),
        };
        Geo {
            block_dim,
            block_idx,
            grid_dim,
        }
    }
}

/// State shared by the emulation of all warps.
pub(super) struct Ctx<'k> {
    pub(super) k: &'k Kernel,
    /// Statements containing a barrier or an async-pipeline op: run warp-wide.
    pub(super) bar: HashSet<Label>,
    /// Statements containing a barrier: their conditions must be uniform in the warp.
    pub(super) sync: HashSet<Label>,
    /// Statements containing an mbarrier test (loops among them may be spin loops).
    pub(super) spin: HashSet<Label>,
    pub(super) geo: Geo,
    /// Variables assigned in each loop (for havocking), by loop label.
    pub(super) loops: HashMap<Label, Rc<Vec<VarId>>>,
    /// Barrier labels already reported with a bad id or count.
    pub(super) bad: HashSet<Label>,
    pub(super) accesses: u64,
    pub(super) warps: u32,
    pub(super) mbars: Mbarriers,
    pub(super) agents: Vec<Agent>,
    pub(super) tokens: Vec<(u32, u32)>,
    /// Facts about the uniform unknowns the kernel assumes at its entry (its arrays'
    /// addresses' alignment).
    pub(super) facts: Vec<Rc<Sym>>,
}

/// How control leaves a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Normal,
    Break,
    Continue,
    Return,
    /// Not executing the branch a masked `if` runs for other lanes.
    Parked,
}

/// What an mbarrier test returns in the emulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TestMode {
    /// Not inside a spin loop: the test's use is not modelled.
    Refuse,
    /// Probing a spin loop's iteration with the phase incomplete: false.
    Probe,
    /// Running a spin loop to its exit: a wait, then true.
    Wait,
}

/// What probing a spin loop's incomplete iteration found.
#[derive(Debug, Default)]
pub(super) struct Probe {
    /// Something besides register values happened (an access, a barrier, another op).
    pub(super) effect: bool,
    /// Tests executed.
    pub(super) tests: usize,
}

/// One lane (thread) of the warp being emulated.
pub(super) struct Lane {
    pub(super) tid: [u32; 3],
    pub(super) env: Vec<Val>,
    pub(super) flow: Flow,
    /// Cumulative path predicates of the enclosing symbolic branches.
    pub(super) preds: Vec<Rc<Sym>>,
    /// The lane may have returned under a symbolic condition.
    pub(super) maybe_exit: Option<(Span, Blame)>,
    /// The lane may have left the current loop iteration under a symbolic condition.
    pub(super) maybe_jump: Option<(Span, Blame)>,
    /// `cp.async` copies issued since the last commit.
    pub(super) open_copies: Vec<AgentIdx>,
    /// Committed `cp.async` groups not yet waited for, oldest first.
    pub(super) groups: VecDeque<Vec<AgentIdx>>,
    /// `cp.async` copies issued and not waited for (for `cp.async.mbarrier.arrive`).
    pub(super) copies: Vec<AgentIdx>,
    /// Bulk stores issued since the last `cp.async.bulk.commit_group`: (reads, writes) agents.
    pub(super) bulk_open: Vec<[AgentIdx; 2]>,
    /// Committed bulk groups not yet waited for, oldest first: the agents still reading their
    /// sources, and those still writing.
    pub(super) bulk_groups: VecDeque<[Vec<AgentIdx>; 2]>,
    /// `wgmma.mma_async`s issued since the last `wgmma.commit_group` (their reads' agents).
    pub(super) wgmma_open: Vec<AgentIdx>,
    /// Committed wgmma groups not yet waited for, oldest first.
    pub(super) wgmma_groups: VecDeque<Vec<AgentIdx>>,
    /// Per mbarrier, the transaction bytes the lane announced there that its copies did not
    /// take yet (what sizes a TMA load whose box the host decides).
    pub(super) tx_budget: Vec<(BarIdx, i64)>,
}

/// The emulator of one warp.
pub(super) struct Emu<'a, 'k> {
    pub(super) ctx: &'a mut Ctx<'k>,
    pub(super) unk: &'a mut Unknowns,
    pub(super) trace: WarpTrace,
    pub(super) lanes: Vec<Lane>,
    /// The statement after which the lanes' control flow started to differ.
    pub(super) div_src: Option<(Label, Span)>,
    pub(super) defects: &'a mut Vec<SyncDefect>,
    /// The warp's index.
    pub(super) w: u32,
    /// What mbarrier tests return.
    pub(super) test_mode: TestMode,
    /// Set while probing a spin loop.
    pub(super) probe: Option<Probe>,
}

/// Evaluates `e` for one lane, folding whatever is concrete.
pub(super) fn eval(k: &Kernel, geo: &Geo, unk: &mut Unknowns, env: &[Val], tid: [u32; 3], e: &Expr) -> Val {
    match e {
        Expr::Const(v, t) => Val::K(t.normalize(*v)),
        Expr::Builtin(b) => match b {
            Builtin::ThreadIdx(d) => Val::K(tid[d.index()] as i64),
            Builtin::BlockDim(d) => Val::K(geo.block_dim[d.index()] as i64),
            Builtin::BlockIdx(d) => geo.block_idx[d.index()].clone(),
            Builtin::GridDim(d) => geo.grid_dim[d.index()].clone(),
            Builtin::WarpSize => Val::K(WARP as i64),
        },
        Expr::Var(v) => env[v.0 as usize].clone(),
        Expr::Un(op, t, a) => match eval(k, geo, unk, env, tid, a) {
            Val::K(x) => match op.fold(*t, x) {
                Some(r) => Val::K(r),
                None => unk.fresh(Origin::Opaque, e.ty(k)),
            },
            Val::S(s) => Val::S(Rc::new(Sym::Un(*op, *t, s))),
        },
        Expr::Bin(op, t, a, b) => {
            let x = eval(k, geo, unk, env, tid, a);
            let y = eval(k, geo, unk, env, tid, b);
            match (&x, &y, op) {
                (Val::K(p), Val::K(q), _) => match op.fold(*t, *p, *q) {
                    Some(r) => Val::K(r),
                    None => unk.fresh(Origin::Opaque, e.ty(k)),
                },
                (Val::K(0), _, BinOp::And) | (_, Val::K(0), BinOp::And) => Val::K(0),
                (Val::K(p), _, BinOp::Or) | (_, Val::K(p), BinOp::Or) if *p != 0 => Val::K(1),
                _ => Val::S(Rc::new(Sym::Bin(*op, *t, x.term(*t), y.term(*t)))),
            }
        }
        Expr::Cast(t, a) => match eval(k, geo, unk, env, tid, a) {
            Val::K(x) => match t.convert(a.ty(k), x) {
                Some(r) => Val::K(r),
                None => unk.fresh(Origin::Opaque, *t),
            },
            Val::S(s) => Val::S(Rc::new(Sym::Cast(*t, s))),
        },
        Expr::Select(c, a, b) => match eval(k, geo, unk, env, tid, c) {
            Val::K(x) => eval(k, geo, unk, env, tid, if x != 0 { a } else { b }),
            Val::S(cs) => {
                let ty = a.ty(k);
                let x = eval(k, geo, unk, env, tid, a);
                let y = eval(k, geo, unk, env, tid, b);
                if x == y {
                    x
                } else {
                    Val::S(Rc::new(Sym::Select(cs, x.term(ty), y.term(ty))))
                }
            }
        },
        Expr::Opaque(t, _) | Expr::Unknown(t) | Expr::GroupValue(t, _) => unk.fresh(Origin::Opaque, *t),
        // One value for the block, but one unknown per lane here: less precise, never unsound.
        Expr::Vote(..) => unk.fresh(Origin::Opaque, ScalarTy::I32),
    }
}

/// The first barrier statement nested in `s`.
pub(super) fn first_barrier(s: &Stmt) -> (Label, Span) {
    let mut found = None;
    visit_stmt(s, &mut |c| {
        if found.is_none() && matches!(c.kind, StmtKind::Barrier(..)) {
            found = Some((c.label, c.span));
        }
    });
    found.unwrap_or((s.label, s.span))
}

/// Variables a loop assigns (in its header, body and step, nested statements included).
pub(super) fn assigned_vars(s: &Stmt) -> Vec<VarId> {
    let mut out = vec![];
    visit_stmt(s, &mut |c| {
        if let StmtKind::Basic(ops) = &c.kind {
            for op in ops {
                match op {
                    Op::Assign(v, _) | Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => out.push(*v),
                    _ => {}
                }
            }
        }
    });
    out.sort();
    out.dedup();
    out
}

impl Emu<'_, '_> {
    pub(super) fn eval(&mut self, li: usize, e: &Expr) -> Val {
        let lane = &self.lanes[li];
        eval(self.ctx.k, &self.ctx.geo, self.unk, &lane.env, lane.tid, e)
    }

    pub(super) fn active(&self) -> Vec<usize> {
        (0..self.lanes.len())
            .filter(|&i| self.lanes[i].flow == Flow::Normal)
            .collect()
    }

    pub(super) fn mixed(&self) -> bool {
        let n = self.lanes.iter().filter(|l| l.flow == Flow::Normal).count();
        n != 0 && n != self.lanes.len()
    }

    pub(super) fn inconclusive(&self, span: Span, msg: String) -> Stop {
        Stop::Inconclusive(Inconclusive { span, message: msg })
    }

    // ---- warp-wide execution (statements containing barriers) ----

    pub(super) fn warp_block(&mut self, b: &Block) -> Result<(), Stop> {
        for s in &b.stmts {
            if self.lanes.iter().all(|l| l.flow != Flow::Normal) {
                break;
            }
            self.warp_stmt(s)?;
        }
        Ok(())
    }

    pub(super) fn warp_stmt(&mut self, s: &Stmt) -> Result<(), Stop> {
        if !self.ctx.bar.contains(&s.label) {
            let was_mixed = self.mixed();
            for li in self.active() {
                self.lane_stmt(li, s)?;
            }
            if !was_mixed && self.mixed() {
                self.div_src = Some((s.label, s.span));
            }
            return Ok(());
        }
        let sync = self.ctx.sync.contains(&s.label);
        match &s.kind {
            StmtKind::Barrier(b, _) => self.barrier(s, b),
            StmtKind::Basic(ops) => self.warp_basic(s, ops),
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } if sync => match self.uniform_cond(s, cond)? {
                Some(true) => self.warp_block(then_blk),
                Some(false) => self.warp_block(else_blk),
                None => Ok(()),
            },
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => self.masked_if(s, cond, then_blk, else_blk),
            StmtKind::Loop(lp) if !sync && self.ctx.spin.contains(&s.label) && self.test_mode != TestMode::Wait => {
                self.spin_loop(s, lp)
            }
            StmtKind::Loop(lp) => self.warp_loop(s, lp),
            _ => Ok(()),
        }
    }

    /// Evaluates a condition that decides whether barriers are reached; it must be known and
    /// equal in all active lanes. `None` when no lane is active.
    pub(super) fn uniform_cond(&mut self, s: &Stmt, cond: &Expr) -> Result<Option<bool>, Stop> {
        let mut seen: Option<bool> = None;
        for li in self.active() {
            if let Some((span, blame)) = self.lanes[li].maybe_exit.clone() {
                return Err(self.inconclusive(span, blame.message("a return before a barrier")));
            }
            let v = match self.eval(li, cond) {
                Val::K(v) => v != 0,
                Val::S(sym) => {
                    let blame = self.unk.blame(&sym);
                    return Err(self.inconclusive(s.span, blame.message("a condition that controls a barrier")));
                }
            };
            match seen {
                Some(p) if p != v => {
                    let (barrier, span) = first_barrier(s);
                    return Err(Stop::Diverged(Divergence {
                        barrier,
                        span,
                        cond_stmt: s.label,
                        cond_span: s.span,
                        within_warp: true,
                        across_blocks: false,
                    }));
                }
                _ => seen = Some(v),
            }
        }
        Ok(seen)
    }

    pub(super) fn warp_loop(&mut self, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        let mut first = true;
        let mut iters = 0u64;
        loop {
            if !(first && lp.kind == LoopKind::DoWhile) {
                for h in &lp.header {
                    self.warp_stmt(h)?;
                }
                if !self.loop_cond(s, &lp.cond)? {
                    break;
                }
            }
            first = false;
            iters += 1;
            if iters > MAX_WARP_ITERS {
                return Err(self.inconclusive(
                    s.span,
                    format!("a loop with barriers runs more than {MAX_WARP_ITERS} iterations"),
                ));
            }
            self.warp_block(&lp.body)?;
            for l in self.lanes.iter_mut() {
                if l.flow == Flow::Continue {
                    l.flow = Flow::Normal;
                }
            }
            if let Some(l) = self
                .lanes
                .iter()
                .find(|l| l.flow == Flow::Normal && l.maybe_jump.is_some())
            {
                let (span, blame) = l.maybe_jump.clone().unwrap_or((s.span, Blame::Other(String::new())));
                return Err(self.inconclusive(span, blame.message("leaving a loop with barriers")));
            }
            if self.lanes.iter().all(|l| l.flow != Flow::Normal) {
                break;
            }
            for h in &lp.step {
                self.warp_stmt(h)?;
            }
        }
        for l in self.lanes.iter_mut() {
            if l.flow == Flow::Break {
                l.flow = Flow::Normal;
            }
        }
        Ok(())
    }

    /// A known integer equal in all active lanes (barrier ids and counts).
    pub(super) fn uniform_int(&mut self, s: &Stmt, e: &Expr, what: &str) -> Result<i64, Stop> {
        let mut seen = None;
        for li in self.active() {
            match self.eval(li, e) {
                Val::K(v) if seen.is_none_or(|p| p == v) => seen = Some(v),
                Val::K(_) => {
                    return Err(self.inconclusive(s.span, format!("the {what} differs among the lanes of a warp")));
                }
                Val::S(sym) => {
                    let blame = self.unk.blame(&sym);
                    return Err(self.inconclusive(s.span, blame.message(&format!("the {what}"))));
                }
            }
        }
        Ok(seen.unwrap_or(0))
    }

    pub(super) fn barrier(&mut self, s: &Stmt, b: &Barrier) -> Result<(), Stop> {
        let active = self.active();
        if active.is_empty() {
            return Ok(());
        }
        if active.len() != self.lanes.len() {
            let (cond_stmt, cond_span) = self.div_src.unwrap_or((s.label, s.span));
            return Err(Stop::Diverged(Divergence {
                barrier: s.label,
                span: s.span,
                cond_stmt,
                cond_span,
                within_warp: true,
                across_blocks: false,
            }));
        }
        if let Some((span, blame)) = active.iter().find_map(|&li| self.lanes[li].maybe_exit.clone()) {
            return Err(self.inconclusive(span, blame.message("a return before a barrier")));
        }
        let all = (self.ctx.warps * WARP) as i64;
        let (kind, id, count) = match b {
            Barrier::Block => (EvKind::Sync, 0, all),
            Barrier::Warp => (EvKind::Warp, 0, 0),
            Barrier::NamedSync { id, count } => {
                let id = self.uniform_int(s, id, "barrier id")?;
                let count = match count {
                    Some(c) => self.uniform_int(s, c, "barrier thread count")?,
                    None => all,
                };
                (EvKind::Sync, id, count)
            }
            Barrier::NamedArrive { id, count } => {
                let id = self.uniform_int(s, id, "barrier id")?;
                let count = self.uniform_int(s, count, "barrier thread count")?;
                (EvKind::Arrive, id, count)
            }
        };
        if kind != EvKind::Warp {
            let bad = if !(0..=15).contains(&id) {
                Some(SyncDefectKind::BadId { id })
            } else if count <= 0 || count % WARP as i64 != 0 || count > u32::MAX as i64 {
                Some(SyncDefectKind::BadCount { count })
            } else {
                None
            };
            if let Some(kind) = bad {
                if self.ctx.bad.insert(s.label) {
                    let what = match kind {
                        SyncDefectKind::BadId { id } => {
                            format!("barrier id {id} is outside 0..=15")
                        }
                        _ => {
                            format!("barrier thread count {count} is not a positive multiple of 32")
                        }
                    };
                    self.defects.push(SyncDefect {
                        kind,
                        labels: vec![s.label],
                        spans: vec![s.span],
                        trace: vec![what],
                    });
                }
                return Ok(());
            }
        }
        let mask = self.full_mask();
        self.trace.events.push(Event {
            kind,
            id: id as u32,
            count: count as u32,
            label: s.label,
            span: s.span,
            mask,
            op: None,
        });
        Ok(())
    }
}
