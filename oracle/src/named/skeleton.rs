//! Per-warp emulation of the synchronization skeleton.
//!
//! Each warp is walked with its 32 lanes' thread ids concrete. Statements that contain a
//! barrier are executed warp-wide: their conditions must be known and equal in every lane
//! (otherwise warp divergence, or an inconclusive verdict naming the missing value).
//! Statements without barriers run lane by lane; they may stay symbolic (unknown branch
//! conditions become path predicates, loops with unknown bounds are abstracted by havocking
//! the variables they assign). The result per warp is its sequence of barrier events and the
//! memory accesses of each segment between them.

use super::pipeline::{AgentIdx, AsyncEv, BarIdx, Mbarriers, PhaseSel};
use super::value::{Blame, Origin, Sym, Unknowns, Val};
use crate::ir::*;
use crate::report::{Divergence, Inconclusive, SyncDefect, SyncDefectKind};
use crate::tree::visit_stmt;
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Lanes per warp.
pub(crate) const WARP: u32 = 32;
/// Iterations after which a barrier-free loop is abstracted instead of unrolled (per lane).
const MAX_LANE_ITERS: u64 = 1 << 16;
/// Iterations after which a loop with barriers is declared non-terminating for the check.
const MAX_WARP_ITERS: u64 = 1 << 20;
/// Upper bound on emulated memory accesses (keeps memory bounded).
const MAX_ACCESSES: u64 = 60_000_000;

/// What a barrier event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvKind {
    /// `bar.sync`: register and wait for completion.
    Sync,
    /// `bar.arrive`: register without waiting.
    Arrive,
    /// `__syncwarp`: orders the lanes of this warp only.
    Warp,
    /// An async-pipeline event (mbarrier operation, copy issue, group wait, fence).
    Async,
}

/// Marks a token value: an `mbarrier.arrive`'s state, naming the arrival (index in
/// [`Skeleton::tokens`] in the low bits).
pub(crate) const TOKEN_TAG: i64 = 1 << 40;

/// One dynamic barrier command executed by a warp.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Sync, arrive or warp barrier.
    pub(crate) kind: EvKind,
    /// Barrier id (0 for warp barriers).
    pub(crate) id: u32,
    /// Expected thread count (0 for warp barriers).
    pub(crate) count: u32,
    /// The barrier statement.
    pub(crate) label: Label,
    /// Its span.
    pub(crate) span: Span,
    /// The lanes that executed it (every lane of the warp for barriers).
    pub(crate) mask: u32,
    /// What an [`EvKind::Async`] event does.
    pub(crate) op: Option<Rc<AsyncEv>>,
}

/// How the copies of an [`Agent`] complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentDone {
    /// As transactions (their bytes) on an mbarrier.
    Mbarrier {
        /// The object.
        bar: BarIdx,
        /// Bytes of all its copies.
        bytes: i64,
    },
    /// With the issuing lanes' commit group (`cp.async.wait_group`).
    Group,
}

/// The asynchronous copies one event issued: they access memory at some time between the
/// issue and their completion.
#[derive(Debug)]
pub(crate) struct Agent {
    /// The issuing warp.
    pub(crate) warp: u32,
    /// The issuing event (index in the warp's events).
    pub(crate) event: u32,
    /// The issuing lanes.
    pub(crate) mask: u32,
    /// How the copies complete.
    pub(crate) done: AgentDone,
    /// Their concrete accesses (segment 1 of the agent).
    pub(crate) conc: Vec<ConcAccess>,
    /// Their symbolic accesses.
    pub(crate) sym: Vec<SymAccess>,
    /// The copy statement.
    pub(crate) label: Label,
    /// Its span.
    pub(crate) span: Span,
}

/// An access whose byte offset is concrete and whose path predicate is true.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConcAccess {
    /// Byte offset.
    pub(crate) offset: i64,
    /// Statement label.
    pub(crate) label: u32,
    /// Array.
    pub(crate) array: u32,
    /// Segment (number of barrier events of the warp before it).
    pub(crate) seg: u32,
    /// Bytes accessed.
    pub(crate) size: u32,
    /// Lane within the warp.
    pub(crate) lane: u8,
    /// Read, write or atomic.
    pub(crate) kind: AccessKind,
}

/// An access with a symbolic offset or under a symbolic path predicate.
#[derive(Clone, Debug)]
pub(crate) struct SymAccess {
    /// Statement label.
    pub(crate) label: Label,
    /// Array.
    pub(crate) array: ArrayId,
    /// Read, write or atomic.
    pub(crate) kind: AccessKind,
    /// Bytes accessed.
    pub(crate) size: u32,
    /// Segment.
    pub(crate) seg: u32,
    /// Lane within the warp.
    pub(crate) lane: u8,
    /// Byte offset (64-bit).
    pub(crate) offset: Val,
    /// Path predicate (`None`: true).
    pub(crate) pred: Option<Rc<Sym>>,
}

/// What the emulation of one warp produced.
#[derive(Clone, Debug, Default)]
pub(crate) struct WarpTrace {
    /// `threadIdx` of each lane.
    pub(crate) lanes: Vec<[u32; 3]>,
    /// Barrier events in program order.
    pub(crate) events: Vec<Event>,
    /// Concrete accesses.
    pub(crate) conc: Vec<ConcAccess>,
    /// Symbolic accesses.
    pub(crate) sym: Vec<SymAccess>,
}

/// Why the emulation of a warp stopped early.
#[derive(Debug)]
pub(crate) enum Stop {
    /// A barrier under a condition that differs among the warp's lanes.
    Diverged(Divergence),
    /// A value the skeleton needs is unknown.
    Inconclusive(Inconclusive),
}

/// The emulation result for the whole block.
#[derive(Debug, Default)]
pub(crate) struct Skeleton {
    /// One trace per warp.
    pub(crate) warps: Vec<WarpTrace>,
    /// The unknowns mentioned by symbolic values.
    pub(crate) unknowns: Unknowns,
    /// Warps that stopped, and why.
    pub(crate) stops: Vec<Stop>,
    /// Bad ids and counts (one per barrier label).
    pub(crate) defects: Vec<SyncDefect>,
    /// The mbarrier objects the events name.
    pub(crate) mbars: Mbarriers,
    /// The asynchronous copies.
    pub(crate) agents: Vec<Agent>,
    /// Per token, the arrival that returned it (warp, event).
    pub(crate) tokens: Vec<(u32, u32)>,
}

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
    sk
}

/// Labels of statements that are or contain a statement `pred` holds for.
/// Whether a loop runs its body exactly once (`do { ... } while (false)` with no header).
fn runs_once(lp: &Loop) -> bool {
    lp.kind == LoopKind::DoWhile && lp.header.is_empty() && lp.step.is_empty() && lp.cond.as_const() == Some(0)
}

/// Whether `b` holds (at any depth) a loop among the `spin` candidates.
fn has_spin_candidate(b: &Block, spin: &HashSet<Label>) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Loop(_) if spin.contains(&s.label) => true,
        StmtKind::Loop(l) => has_spin_candidate(&l.body, spin),
        StmtKind::If { then_blk, else_blk, .. } => {
            has_spin_candidate(then_blk, spin) || has_spin_candidate(else_blk, spin)
        }
        _ => false,
    })
}

fn containing(b: &Block, pred: &dyn Fn(&Stmt) -> bool) -> HashSet<Label> {
    fn walk(s: &Stmt, pred: &dyn Fn(&Stmt) -> bool, out: &mut HashSet<Label>) -> bool {
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
type LaneFlowState = (Vec<Rc<Sym>>, Option<(Span, Blame)>, Option<(Span, Blame)>);

/// An access as the trace records it.
enum Recorded {
    Conc(ConcAccess),
    Sym(SymAccess),
}

/// The bit mask of lanes.
fn mask_of(lanes: &[usize]) -> u32 {
    lanes.iter().fold(0u32, |m, &l| m | (1 << l))
}

/// Thread-geometry values shared by all lanes.
struct Geo {
    block_dim: [u32; 3],
    block_idx: [Val; 3],
    grid_dim: [Val; 3],
}

impl Geo {
    fn new(k: &Kernel, block_dim: [u32; 3], unk: &mut Unknowns) -> Geo {
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
struct Ctx<'k> {
    k: &'k Kernel,
    /// Statements containing a barrier or an async-pipeline op: run warp-wide.
    bar: HashSet<Label>,
    /// Statements containing a barrier: their conditions must be uniform in the warp.
    sync: HashSet<Label>,
    /// Statements containing an mbarrier test (loops among them may be spin loops).
    spin: HashSet<Label>,
    geo: Geo,
    /// Variables assigned in each loop (for havocking), by loop label.
    loops: HashMap<Label, Rc<Vec<VarId>>>,
    /// Barrier labels already reported with a bad id or count.
    bad: HashSet<Label>,
    accesses: u64,
    warps: u32,
    mbars: Mbarriers,
    agents: Vec<Agent>,
    tokens: Vec<(u32, u32)>,
}

/// How control leaves a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Normal,
    Break,
    Continue,
    Return,
    /// Not executing the branch a masked `if` runs for other lanes.
    Parked,
}

/// What an mbarrier test returns in the emulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TestMode {
    /// Not inside a spin loop: the test's use is not modelled.
    Refuse,
    /// Probing a spin loop's iteration with the phase incomplete: false.
    Probe,
    /// Running a spin loop to its exit: a wait, then true.
    Wait,
}

/// What probing a spin loop's incomplete iteration found.
#[derive(Debug, Default)]
struct Probe {
    /// Something besides register values happened (an access, a barrier, another op).
    effect: bool,
    /// Tests executed.
    tests: usize,
}

/// One lane (thread) of the warp being emulated.
struct Lane {
    tid: [u32; 3],
    env: Vec<Val>,
    flow: Flow,
    /// Cumulative path predicates of the enclosing symbolic branches.
    preds: Vec<Rc<Sym>>,
    /// The lane may have returned under a symbolic condition.
    maybe_exit: Option<(Span, Blame)>,
    /// The lane may have left the current loop iteration under a symbolic condition.
    maybe_jump: Option<(Span, Blame)>,
    /// `cp.async` copies issued since the last commit.
    open_copies: Vec<AgentIdx>,
    /// Committed `cp.async` groups not yet waited for, oldest first.
    groups: VecDeque<Vec<AgentIdx>>,
    /// `cp.async` copies issued and not waited for (for `cp.async.mbarrier.arrive`).
    copies: Vec<AgentIdx>,
}

/// The emulator of one warp.
struct Emu<'a, 'k> {
    ctx: &'a mut Ctx<'k>,
    unk: &'a mut Unknowns,
    trace: WarpTrace,
    lanes: Vec<Lane>,
    /// The statement after which the lanes' control flow started to differ.
    div_src: Option<(Label, Span)>,
    defects: &'a mut Vec<SyncDefect>,
    /// The warp's index.
    w: u32,
    /// What mbarrier tests return.
    test_mode: TestMode,
    /// Set while probing a spin loop.
    probe: Option<Probe>,
}

/// Evaluates `e` for one lane, folding whatever is concrete.
fn eval(k: &Kernel, geo: &Geo, unk: &mut Unknowns, env: &[Val], tid: [u32; 3], e: &Expr) -> Val {
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
        Expr::Opaque(t, _) | Expr::Unknown(t) => unk.fresh(Origin::Opaque, *t),
        // One value for the block, but one unknown per lane here: less precise, never unsound.
        Expr::Vote(..) => unk.fresh(Origin::Opaque, ScalarTy::I32),
    }
}

/// The first barrier statement nested in `s`.
fn first_barrier(s: &Stmt) -> (Label, Span) {
    let mut found = None;
    visit_stmt(s, &mut |c| {
        if found.is_none() && matches!(c.kind, StmtKind::Barrier(..)) {
            found = Some((c.label, c.span));
        }
    });
    found.unwrap_or((s.label, s.span))
}

/// Variables a loop assigns (in its header, body and step, nested statements included).
fn assigned_vars(s: &Stmt) -> Vec<VarId> {
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
    fn eval(&mut self, li: usize, e: &Expr) -> Val {
        let lane = &self.lanes[li];
        eval(self.ctx.k, &self.ctx.geo, self.unk, &lane.env, lane.tid, e)
    }

    fn active(&self) -> Vec<usize> {
        (0..self.lanes.len())
            .filter(|&i| self.lanes[i].flow == Flow::Normal)
            .collect()
    }

    fn mixed(&self) -> bool {
        let n = self.lanes.iter().filter(|l| l.flow == Flow::Normal).count();
        n != 0 && n != self.lanes.len()
    }

    fn inconclusive(&self, span: Span, msg: String) -> Stop {
        Stop::Inconclusive(Inconclusive { span, message: msg })
    }

    // ---- warp-wide execution (statements containing barriers) ----

    fn warp_block(&mut self, b: &Block) -> Result<(), Stop> {
        for s in &b.stmts {
            if self.lanes.iter().all(|l| l.flow != Flow::Normal) {
                break;
            }
            self.warp_stmt(s)?;
        }
        Ok(())
    }

    fn warp_stmt(&mut self, s: &Stmt) -> Result<(), Stop> {
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
    fn uniform_cond(&mut self, s: &Stmt, cond: &Expr) -> Result<Option<bool>, Stop> {
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

    fn warp_loop(&mut self, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
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
    fn uniform_int(&mut self, s: &Stmt, e: &Expr, what: &str) -> Result<i64, Stop> {
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

    fn barrier(&mut self, s: &Stmt, b: &Barrier) -> Result<(), Stop> {
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

    // ---- lane-by-lane execution (statements without barriers) ----

    fn lane_block(&mut self, li: usize, b: &Block) -> Result<(), Stop> {
        for s in &b.stmts {
            if self.lanes[li].flow != Flow::Normal {
                break;
            }
            self.lane_stmt(li, s)?;
        }
        Ok(())
    }

    fn lane_stmt(&mut self, li: usize, s: &Stmt) -> Result<(), Stop> {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    self.op(li, s.label, op)?;
                }
                Ok(())
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => match self.eval(li, cond) {
                Val::K(v) => self.lane_block(li, if v != 0 { then_blk } else { else_blk }),
                Val::S(c) => self.symbolic_if(li, s, c, then_blk, else_blk),
            },
            StmtKind::Loop(lp) => self.lane_loop(li, s, lp),
            StmtKind::Break => {
                self.lanes[li].flow = Flow::Break;
                Ok(())
            }
            StmtKind::Continue => {
                self.lanes[li].flow = Flow::Continue;
                Ok(())
            }
            StmtKind::Return => {
                self.lanes[li].flow = Flow::Return;
                Ok(())
            }
            StmtKind::Barrier(..) => {
                if let Some(p) = &mut self.probe {
                    p.effect = true;
                }
                Ok(())
            }
            StmtKind::Assume(_) => Ok(()),
        }
    }

    fn push_pred(&mut self, li: usize, p: Rc<Sym>) {
        let l = &mut self.lanes[li];
        let p = match l.preds.last() {
            Some(top) => Rc::new(Sym::Bin(BinOp::And, ScalarTy::Bool, top.clone(), p)),
            None => p,
        };
        l.preds.push(p);
    }

    /// Both branches under their path predicates; variables merged with `select`.
    fn symbolic_if(&mut self, li: usize, s: &Stmt, c: Rc<Sym>, then_blk: &Block, else_blk: &Block) -> Result<(), Stop> {
        let c = if c.ty() == ScalarTy::Bool {
            c
        } else {
            Rc::new(Sym::Cast(ScalarTy::Bool, c))
        };
        let saved = self.lanes[li].env.clone();
        self.push_pred(li, c.clone());
        self.lane_block(li, then_blk)?;
        self.lanes[li].preds.pop();
        let then_env = std::mem::replace(&mut self.lanes[li].env, saved);
        let then_flow = std::mem::replace(&mut self.lanes[li].flow, Flow::Normal);
        self.push_pred(li, Rc::new(Sym::Un(UnOp::Not, ScalarTy::Bool, c.clone())));
        self.lane_block(li, else_blk)?;
        self.lanes[li].preds.pop();
        let else_flow = self.lanes[li].flow;
        let probing = self.test_mode == TestMode::Probe;
        let k = self.ctx.k;
        let lane = &mut self.lanes[li];
        for (i, t) in then_env.into_iter().enumerate() {
            if t != lane.env[i] {
                let ty = k.vars[i].ty;
                lane.env[i] = Val::S(Rc::new(Sym::Select(c.clone(), t.term(ty), lane.env[i].term(ty))));
            }
        }
        if then_flow != else_flow {
            lane.flow = Flow::Normal;
            let blame = self.unk.blame(&c);
            for f in [then_flow, else_flow] {
                match f {
                    Flow::Return => lane.maybe_exit = Some((s.span, blame.clone())),
                    // Probing a spin loop, a path that may start the next iteration early is
                    // followed through the rest of this one instead: more paths for the probe
                    // to find an effect or an exit in (libcu++ polls 16 times before it backs
                    // off, `if (count < 16) { ++count; continue; }`).
                    Flow::Continue if probing => {}
                    Flow::Break | Flow::Continue => lane.maybe_jump = Some((s.span, blame.clone())),
                    Flow::Normal | Flow::Parked => {}
                }
            }
        }
        Ok(())
    }

    fn lane_loop(&mut self, li: usize, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        let outer_jump = self.lanes[li].maybe_jump.take();
        let mut first = true;
        let mut iters = 0u64;
        loop {
            if !(first && lp.kind == LoopKind::DoWhile) {
                for h in &lp.header {
                    self.lane_stmt(li, h)?;
                }
                match self.eval(li, &lp.cond) {
                    Val::K(0) => break,
                    Val::K(_) => {}
                    Val::S(_) => {
                        self.abstract_loop(li, s, lp)?;
                        break;
                    }
                }
            }
            first = false;
            if iters >= MAX_LANE_ITERS {
                self.abstract_loop(li, s, lp)?;
                break;
            }
            iters += 1;
            self.lane_block(li, &lp.body)?;
            let lane = &mut self.lanes[li];
            match lane.flow {
                Flow::Break => {
                    lane.flow = Flow::Normal;
                    break;
                }
                Flow::Return => break,
                Flow::Continue => lane.flow = Flow::Normal,
                Flow::Normal | Flow::Parked => {}
            }
            if lane.maybe_jump.is_some() {
                // Some path left this iteration early: the concrete unrolling no longer
                // follows every path, so summarize the remaining iterations.
                self.abstract_loop(li, s, lp)?;
                break;
            }
            for h in &lp.step {
                self.lane_stmt(li, h)?;
            }
        }
        self.lanes[li].maybe_jump = outer_jump;
        Ok(())
    }

    /// Havocs the loop's variables and runs one generic iteration under the loop guard: its
    /// accesses stand for those of every remaining iteration.
    fn abstract_loop(&mut self, li: usize, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        let vars = match self.ctx.loops.get(&s.label) {
            Some(v) => v.clone(),
            None => {
                let v = Rc::new(assigned_vars(s));
                self.ctx.loops.insert(s.label, v.clone());
                v
            }
        };
        self.havoc(li, &vars);
        for h in &lp.header {
            self.lane_stmt(li, h)?;
        }
        self.lanes[li].flow = Flow::Normal;
        let c = self.eval(li, &lp.cond);
        if c != Val::K(0) {
            let pushed = if let Val::S(c) = c {
                let c = if c.ty() == ScalarTy::Bool {
                    c
                } else {
                    Rc::new(Sym::Cast(ScalarTy::Bool, c))
                };
                self.push_pred(li, c);
                true
            } else {
                false
            };
            self.lane_block(li, &lp.body)?;
            if self.lanes[li].flow == Flow::Return {
                self.lanes[li].maybe_exit = Some((s.span, Blame::Other("the trip count of a loop".into())));
            }
            self.lanes[li].flow = Flow::Normal;
            for h in &lp.step {
                self.lane_stmt(li, h)?;
            }
            self.lanes[li].flow = Flow::Normal;
            if pushed {
                self.lanes[li].preds.pop();
            }
        }
        self.lanes[li].maybe_jump = None;
        self.havoc(li, &vars);
        Ok(())
    }

    fn havoc(&mut self, li: usize, vars: &[VarId]) {
        for &v in vars {
            let var = self.ctx.k.var(v);
            self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Var(var.name.clone()), var.ty);
        }
    }

    fn op(&mut self, li: usize, label: Label, op: &Op) -> Result<(), Stop> {
        match op {
            Op::Assign(v, e) => {
                let ty = self.ctx.k.var(*v).ty;
                let x = match self.eval(li, e) {
                    Val::K(x) => Val::K(ty.normalize(x)),
                    s => s,
                };
                self.lanes[li].env[v.0 as usize] = x;
            }
            Op::Read(dst, a) | Op::Atomic(dst, a, _) => {
                self.access(li, label, a)?;
                if let Some(v) = dst {
                    let name = self.ctx.k.array(a.array).name.clone();
                    let ty = self.ctx.k.var(*v).ty;
                    self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Read(name), ty);
                }
            }
            Op::Write(a, _) => self.access(li, label, a)?,
            Op::Mbarrier(_, MbarOp::Test { dst, .. }) if self.probe.is_some() => {
                if let Some(p) = &mut self.probe {
                    p.tests += 1;
                }
                if let Some(d) = dst {
                    self.lanes[li].env[d.0 as usize] = Val::K(0);
                }
            }
            Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => match &mut self.probe {
                Some(p) => p.effect = true,
                None => {
                    let span = self.ctx.k.span;
                    return Err(self.inconclusive(span, "internal: an async-pipeline op run lane by lane".into()));
                }
            },
        }
        Ok(())
    }

    fn access(&mut self, li: usize, label: Label, a: &Access) -> Result<(), Stop> {
        if self.ctx.k.array(a.array).space == Space::Local {
            return Ok(());
        }
        if let Some(p) = &mut self.probe {
            p.effect = true;
            return Ok(());
        }
        let seg = self.trace.events.len() as u32;
        match self.lane_access(li, label, a, seg)? {
            Recorded::Conc(c) => self.trace.conc.push(c),
            Recorded::Sym(x) => self.trace.sym.push(x),
        }
        Ok(())
    }

    /// One lane's access as the trace records it, in segment `seg`.
    fn lane_access(&mut self, li: usize, label: Label, a: &Access, seg: u32) -> Result<Recorded, Stop> {
        self.ctx.accesses += 1;
        if self.ctx.accesses > MAX_ACCESSES {
            return Err(self.inconclusive(
                a.span,
                format!("the emulation exceeds {MAX_ACCESSES} memory accesses; give smaller parameters"),
            ));
        }
        let offset = self.eval(li, &a.offset);
        let pred = self.lanes[li].preds.last().cloned();
        Ok(match (&offset, &pred) {
            (Val::K(o), None) => Recorded::Conc(ConcAccess {
                offset: *o,
                label: label.0,
                array: a.array.0,
                seg,
                size: a.size,
                lane: li as u8,
                kind: a.kind,
            }),
            _ => Recorded::Sym(SymAccess {
                label,
                array: a.array,
                kind: a.kind,
                size: a.size,
                seg,
                lane: li as u8,
                offset,
                pred,
            }),
        })
    }
}

// ---- async pipelines: lane masks, mbarrier operations, asynchronous copies, spin loops ----

impl Emu<'_, '_> {
    /// Every lane of the warp.
    fn full_mask(&self) -> u32 {
        if self.lanes.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes.len()) - 1
        }
    }

    /// A statement with async-pipeline ops: its ops in order, each over the active lanes
    /// (an async op as events, one per distinct operand set, with the lanes as their mask).
    fn warp_basic(&mut self, s: &Stmt, ops: &[Op]) -> Result<(), Stop> {
        for op in ops {
            if op.is_async() {
                self.async_op(s, op)?;
            } else {
                for li in self.active() {
                    self.op(li, s.label, op)?;
                }
            }
        }
        Ok(())
    }

    /// Each active lane's value of a condition that decides async-pipeline ops (they may
    /// differ, but must be known).
    fn lane_conds(&mut self, s: &Stmt, cond: &Expr) -> Result<Vec<(usize, bool)>, Stop> {
        let mut out = vec![];
        for li in self.active() {
            if let Some((span, blame)) = self.lanes[li].maybe_exit.clone() {
                return Err(self.inconclusive(span, blame.message("a return before an mbarrier operation")));
            }
            match self.eval(li, cond) {
                Val::K(v) => out.push((li, v != 0)),
                Val::S(sym) => {
                    let blame = self.unk.blame(&sym);
                    return Err(self.inconclusive(
                        s.span,
                        blame.message("a condition that controls an mbarrier or async-copy operation"),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Whether a warp-wide loop goes on: uniform for loops with barriers; for loops with only
    /// async-pipeline ops, lanes whose condition is false leave the loop (as by `break`).
    fn loop_cond(&mut self, s: &Stmt, cond: &Expr) -> Result<bool, Stop> {
        if self.ctx.sync.contains(&s.label) {
            return Ok(self.uniform_cond(s, cond)? == Some(true));
        }
        let conds = self.lane_conds(s, cond)?;
        for &(li, c) in &conds {
            if !c {
                self.lanes[li].flow = Flow::Break;
            }
        }
        Ok(conds.iter().any(|&(_, c)| c))
    }

    /// An `if` around async-pipeline ops only: each branch runs for the lanes that take it
    /// (the others parked), as the warp executes it.
    fn masked_if(&mut self, s: &Stmt, cond: &Expr, then_blk: &Block, else_blk: &Block) -> Result<(), Stop> {
        let conds = self.lane_conds(s, cond)?;
        for (want, blk) in [(true, then_blk), (false, else_blk)] {
            let parked: Vec<usize> = conds.iter().filter(|c| c.1 != want).map(|c| c.0).collect();
            if parked.len() == conds.len() {
                continue;
            }
            for &li in &parked {
                self.lanes[li].flow = Flow::Parked;
            }
            let r = self.warp_block(blk);
            for &li in &parked {
                self.lanes[li].flow = Flow::Normal;
            }
            r?;
        }
        Ok(())
    }

    /// A loop around mbarrier tests. It is a wait if an iteration whose tests are false has
    /// no effect and does not leave the loop, whatever earlier iterations assigned (probed
    /// with the loop's variables unknown); then it runs to its exit with each test a wait
    /// followed by true. Variables a false iteration changes are unknown afterwards.
    fn spin_loop(&mut self, s: &Stmt, lp: &Loop) -> Result<(), Stop> {
        if runs_once(lp) && has_spin_candidate(&lp.body, &self.ctx.spin) {
            // `do { ... } while (false)` (an inlined function's body, a switch) is no spin: the
            // loops inside with the tests are judged when reached (libcu++'s wait runs its
            // polling loop inside several of them).
            return self.warp_loop(s, lp);
        }
        let active = self.active();
        let vars = assigned_vars(s);
        let entry: Vec<Vec<Val>> = active.iter().map(|&li| self.lanes[li].env.clone()).collect();
        let saved: Vec<LaneFlowState> = active
            .iter()
            .map(|&li| {
                let l = &self.lanes[li];
                (l.preds.clone(), l.maybe_exit.clone(), l.maybe_jump.clone())
            })
            .collect();
        let (prev_mode, prev_probe) = (self.test_mode, self.probe.take());
        self.test_mode = TestMode::Probe;
        self.probe = Some(Probe::default());
        let mut spins = true;
        let mut after = vec![];
        for &li in &active {
            self.havoc(li, &vars);
            spins &= self.probe_iteration(li, lp)?;
            after.push(std::mem::take(&mut self.lanes[li].env));
        }
        let probe = std::mem::replace(&mut self.probe, prev_probe).unwrap_or_default();
        self.test_mode = prev_mode;
        for (i, &li) in active.iter().enumerate() {
            let l = &mut self.lanes[li];
            l.env = entry[i].clone();
            l.flow = Flow::Normal;
            (l.preds, l.maybe_exit, l.maybe_jump) = saved[i].clone();
        }
        if !spins || probe.effect || probe.tests == 0 {
            if has_spin_candidate(&lp.body, &self.ctx.spin) {
                // Not a spin itself (a role loop around one): run as a loop, and the loops
                // inside with the tests are judged when reached.
                return self.warp_loop(s, lp);
            }
            return Err(self.inconclusive(
                s.span,
                "a loop around an mbarrier test_wait/try_wait that is not a pure spin (while the phase is incomplete it has effects or may leave the loop)".into(),
            ));
        }
        for (i, &li) in active.iter().enumerate() {
            for &v in &vars {
                if after[i][v.0 as usize] != entry[i][v.0 as usize] {
                    let var = self.ctx.k.var(v);
                    self.lanes[li].env[v.0 as usize] = self.unk.fresh(Origin::Var(var.name.clone()), var.ty);
                }
            }
        }
        self.test_mode = TestMode::Wait;
        let r = self.warp_loop(s, lp);
        self.test_mode = prev_mode;
        r
    }

    /// One iteration of a spin loop for lane `li`, tests false: whether it stays in the loop.
    fn probe_iteration(&mut self, li: usize, lp: &Loop) -> Result<bool, Stop> {
        let test = |em: &mut Self| -> Result<bool, Stop> {
            for h in &lp.header {
                em.lane_stmt(li, h)?;
            }
            Ok(matches!(em.eval(li, &lp.cond), Val::K(c) if c != 0))
        };
        if lp.kind != LoopKind::DoWhile && !test(self)? {
            return Ok(false);
        }
        self.lane_block(li, &lp.body)?;
        if !matches!(self.lanes[li].flow, Flow::Normal | Flow::Continue) {
            return Ok(false);
        }
        self.lanes[li].flow = Flow::Normal;
        for h in &lp.step {
            self.lane_stmt(li, h)?;
        }
        if lp.kind == LoopKind::DoWhile && !test(self)? {
            return Ok(false);
        }
        let l = &self.lanes[li];
        Ok(l.flow == Flow::Normal && l.maybe_exit.is_none() && l.maybe_jump.is_none())
    }

    /// A known integer of one lane.
    fn lane_int(&mut self, li: usize, e: &Expr, span: Span, what: &str) -> Result<i64, Stop> {
        match self.eval(li, e) {
            Val::K(v) => Ok(v),
            Val::S(sym) => {
                let blame = self.unk.blame(&sym);
                Err(self.inconclusive(span, blame.message(what)))
            }
        }
    }

    /// Appends an async event for the lanes of `mask`; returns its index.
    fn push_async(&mut self, s: &Stmt, mask: u32, ev: AsyncEv) -> u32 {
        let idx = self.trace.events.len() as u32;
        self.trace.events.push(Event {
            kind: EvKind::Async,
            id: 0,
            count: 0,
            label: s.label,
            span: s.span,
            mask,
            op: Some(Rc::new(ev)),
        });
        idx
    }

    /// An async-pipeline op over the active lanes.
    fn async_op(&mut self, s: &Stmt, op: &Op) -> Result<(), Stop> {
        let active = self.active();
        for &li in &active {
            if let Some((span, blame)) = self.lanes[li].maybe_exit.clone() {
                return Err(self.inconclusive(span, blame.message("a return before an mbarrier operation")));
            }
        }
        if active.is_empty() {
            return Ok(());
        }
        match op {
            Op::Mbarrier(b, m) => self.mbar_op(s, &active, b, m),
            Op::AsyncCopy(c) => self.async_copy(s, &active, c),
            Op::AsyncGroup(g) => {
                self.async_group(s, &active, *g);
                Ok(())
            }
            Op::ProxyFence(f) => {
                self.push_async(s, mask_of(&active), AsyncEv::Fence(*f));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The phase a lane's wait or test names.
    fn phase_sel(&mut self, li: usize, p: &MbarPhase, span: Span) -> Result<PhaseSel, Stop> {
        match p {
            MbarPhase::Parity(e) => Ok(PhaseSel::Parity(
                (self.lane_int(li, e, span, "the phase parity")? & 1) as u8,
            )),
            MbarPhase::Token(e) => match self.eval(li, e) {
                Val::K(v) if v & TOKEN_TAG != 0 && ((v & !TOKEN_TAG) as usize) < self.ctx.tokens.len() => {
                    Ok(PhaseSel::Token((v & !TOKEN_TAG) as u64))
                }
                _ => Err(self.inconclusive(
                    span,
                    "a wait on an mbarrier state token autosync cannot trace to the arrive that returned it".into(),
                )),
            },
        }
    }

    /// An mbarrier operation: per lane its object and operands; lanes with equal ones share
    /// an event. A test is a wait inside a spin loop and not modelled elsewhere.
    fn mbar_op(&mut self, s: &Stmt, active: &[usize], b: &MbarRef, m: &MbarOp) -> Result<(), Stop> {
        let mut events: Vec<(AsyncEv, u32)> = vec![];
        let mut dsts: Vec<(usize, usize)> = vec![];
        for &li in active {
            let off = self.lane_int(li, &b.offset, b.span, "the mbarrier's address")?;
            let bar = self.ctx.mbars.of(b.array, off);
            let kind = if matches!(m, MbarOp::Init { .. } | MbarOp::Inval) {
                AccessKind::Write
            } else {
                AccessKind::Atomic
            };
            let object = Access {
                array: b.array,
                kind,
                offset: b.offset.clone(),
                size: 8,
                span: b.span,
            };
            self.access(li, s.label, &object)?;
            let span = s.span;
            let ev = match m {
                MbarOp::Init { count } => AsyncEv::Init {
                    bar,
                    count: self.lane_int(li, count, span, "the mbarrier's arrival count")?,
                },
                MbarOp::Arrive { count, tx, drop, .. } => AsyncEv::Arrive {
                    bar,
                    count: self.lane_int(li, count, span, "the arrival count")?,
                    tx: match tx {
                        Some(t) => self.lane_int(li, t, span, "the expected transaction bytes")?,
                        None => 0,
                    },
                    drop: *drop,
                    token: None,
                },
                MbarOp::ExpectTx { bytes } => AsyncEv::ExpectTx {
                    bar,
                    bytes: self.lane_int(li, bytes, span, "the expected transaction bytes")?,
                },
                MbarOp::CompleteTx { bytes } => AsyncEv::CompleteTx {
                    bar,
                    bytes: self.lane_int(li, bytes, span, "the completed transaction bytes")?,
                },
                MbarOp::Test { dst, phase } => {
                    if self.test_mode != TestMode::Wait {
                        return Err(self.inconclusive(
                            span,
                            "the result of an mbarrier test_wait/try_wait is used other than to spin until it is true"
                                .into(),
                        ));
                    }
                    if let Some(d) = dst {
                        let ty = self.ctx.k.var(*d).ty;
                        self.lanes[li].env[d.0 as usize] = Val::K(ty.normalize(1));
                    }
                    AsyncEv::Wait {
                        bar,
                        phase: self.phase_sel(li, phase, span)?,
                    }
                }
                MbarOp::Wait { phase } => AsyncEv::Wait {
                    bar,
                    phase: self.phase_sel(li, phase, span)?,
                },
                MbarOp::ArriveOnCopies { noinc } => AsyncEv::ArriveOnCopies {
                    bar,
                    noinc: *noinc,
                    copies: vec![(li as u8, self.lanes[li].copies.clone())],
                },
                MbarOp::Inval => AsyncEv::Inval { bar },
            };
            let slot = events.iter().position(|(e, _)| same_event(e, &ev));
            let gi = match slot {
                Some(i) => {
                    events[i].1 |= 1 << li;
                    if let (AsyncEv::ArriveOnCopies { copies, .. }, AsyncEv::ArriveOnCopies { copies: mine, .. }) =
                        (&mut events[i].0, ev)
                    {
                        copies.extend(mine);
                    }
                    i
                }
                None => {
                    events.push((ev, 1 << li));
                    events.len() - 1
                }
            };
            dsts.push((li, gi));
        }
        let token_var = match m {
            MbarOp::Arrive { token: Some(v), .. } => Some(*v),
            _ => None,
        };
        for (gi, (mut ev, mask)) in events.into_iter().enumerate() {
            if let (AsyncEv::Arrive { token, .. }, Some(v)) = (&mut ev, token_var) {
                let id = self.ctx.tokens.len() as u64;
                *token = Some(id);
                self.ctx.tokens.push((self.w, self.trace.events.len() as u32));
                let ty = self.ctx.k.var(v).ty;
                for &(li, g) in &dsts {
                    if g == gi {
                        self.lanes[li].env[v.0 as usize] = Val::K(ty.normalize(TOKEN_TAG | id as i64));
                    }
                }
            }
            self.push_async(s, mask, ev);
        }
        Ok(())
    }

    /// Asynchronous copies: per lane its completion (an mbarrier and bytes, or the commit
    /// group); lanes completing alike share one agent, whose accesses are the copies'.
    fn async_copy(&mut self, s: &Stmt, active: &[usize], c: &AsyncCopy) -> Result<(), Stop> {
        let mut agents: Vec<(AgentDone, u32)> = vec![];
        for &li in active {
            let done = match &c.completion {
                AsyncCompletion::Mbarrier(b) => {
                    let off = self.lane_int(li, &b.offset, b.span, "the mbarrier's address")?;
                    let bytes = self.lane_int(li, &c.bytes, s.span, "the bytes of an asynchronous copy")?;
                    AgentDone::Mbarrier {
                        bar: self.ctx.mbars.of(b.array, off),
                        bytes,
                    }
                }
                AsyncCompletion::Group => AgentDone::Group,
            };
            match agents.iter_mut().find(|(d, _)| same_target(d, &done)) {
                Some((AgentDone::Mbarrier { bytes, .. }, mask)) => {
                    if let AgentDone::Mbarrier { bytes: b, .. } = done {
                        *bytes += b;
                    }
                    *mask |= 1 << li;
                }
                Some((_, mask)) => *mask |= 1 << li,
                None => agents.push((done, 1 << li)),
            }
        }
        for (done, mask) in agents {
            let idx = self.ctx.agents.len() as AgentIdx;
            let event = self.trace.events.len() as u32;
            let mut agent = Agent {
                warp: self.w,
                event,
                mask,
                done,
                conc: vec![],
                sym: vec![],
                label: s.label,
                span: s.span,
            };
            for li in (0..self.lanes.len()).filter(|l| mask & (1 << l) != 0) {
                for a in std::iter::once(&c.dst).chain(&c.src) {
                    if self.ctx.k.array(a.array).space == Space::Local {
                        continue;
                    }
                    match self.lane_access(li, s.label, a, 1)? {
                        Recorded::Conc(x) => agent.conc.push(x),
                        Recorded::Sym(x) => agent.sym.push(x),
                    }
                }
                if done == AgentDone::Group {
                    self.lanes[li].open_copies.push(idx);
                    self.lanes[li].copies.push(idx);
                }
            }
            self.ctx.agents.push(agent);
            self.push_async(s, mask, AsyncEv::Issue { agent: idx });
        }
        Ok(())
    }

    /// `cp.async.commit_group` / `wait_group n` over the active lanes.
    fn async_group(&mut self, s: &Stmt, active: &[usize], g: AsyncGroupOp) {
        match g {
            AsyncGroupOp::Commit => {
                for &li in active {
                    let open = std::mem::take(&mut self.lanes[li].open_copies);
                    self.lanes[li].groups.push_back(open);
                }
            }
            AsyncGroupOp::Wait(n) => {
                let mut done = vec![];
                for &li in active {
                    let lane = &mut self.lanes[li];
                    let mut mine = vec![];
                    while lane.groups.len() > n as usize {
                        mine.extend(lane.groups.pop_front().unwrap_or_default());
                    }
                    lane.copies.retain(|a| !mine.contains(a));
                    if !mine.is_empty() {
                        done.push((li as u8, mine));
                    }
                }
                if !done.is_empty() {
                    self.push_async(s, mask_of(active), AsyncEv::WaitGroup { done });
                }
            }
        }
    }
}

/// Whether two lanes' events are one (arrive-on-copies events of one object merge their
/// per-lane copies).
fn same_event(a: &AsyncEv, b: &AsyncEv) -> bool {
    match (a, b) {
        (AsyncEv::ArriveOnCopies { bar, noinc, .. }, AsyncEv::ArriveOnCopies { bar: b2, noinc: n2, .. }) => {
            bar == b2 && noinc == n2
        }
        _ => a == b,
    }
}

/// Whether two lanes' copies complete on the same target.
fn same_target(a: &AgentDone, b: &AgentDone) -> bool {
    match (a, b) {
        (AgentDone::Mbarrier { bar, .. }, AgentDone::Mbarrier { bar: b2, .. }) => bar == b2,
        (AgentDone::Group, AgentDone::Group) => true,
        _ => false,
    }
}
