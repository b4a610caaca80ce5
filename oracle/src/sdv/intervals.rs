//! Barrier intervals: for every pair of access statements, the iteration relations under which
//! one thread can execute the first and another thread the second with no barrier that both
//! execute in between.
//!
//! The kernel is turned into a control-flow graph of the lock-step (predicated) execution: the
//! `then` branch can fall into the `else` branch, a branch or loop body that may be skipped has a
//! bypass edge, and a `break`/`continue`/`return` under a non-uniform predicate also falls
//! through (the other threads go on). Barrier nodes block paths; a path that crosses the back
//! edge of a loop shared by both statements is classified by the outermost such loop.
//!
//! A path also tells where in a loop its ends are: when it enters a loop and reaches the second
//! access without crossing that loop's back edge, the second access is in the loop's first
//! iteration; when it leaves a loop of the first access right after that access's iteration, the
//! first access is in the loop's last iteration. These [`Bound`]s let the conflict query use the
//! uniform conditions on the way (`if (i % 2 == 0)` cannot be false in iteration 0).

use super::decided::Decided;
use super::fold::{fold, param_consts, Consts};
use super::levels::{Level, Uniformity};
use super::query::{Bound, PathBounds};
use super::syntax::modified_vars;
use crate::ir::*;
use crate::report::IterRelation;
use crate::tree::LabelTree;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// Which barriers a path may not cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Blocking {
    /// Only block-wide barriers (threads of different warps).
    BlockOnly,
    /// Block-wide barriers and `__syncwarp` (threads of the same warp).
    BlockAndWarp,
}

/// What a CFG edge does to the loop structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// Stays in the same iterations.
    Plain,
    /// The back edge of a loop: its next iteration.
    Back(Label),
    /// From before a loop into its first iteration.
    Enter(Label),
    /// Out of a loop because its test failed.
    Exit(Label),
    /// Out of a loop by `break`.
    Leave(Label),
    /// Past a loop whose first test failed.
    Skip(Label),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    /// A statement that may access memory.
    Stmt(Label),
    /// A barrier that both threads execute when it executes (non-divergent).
    BlockBarrier,
    /// A `__syncwarp` whose predicate is uniform within each warp.
    WarpBarrier,
    /// Anything else.
    Nop,
}

/// The lock-step control-flow graph.
pub(crate) struct Cfg {
    nodes: Vec<Node>,
    /// Successors with what the edge does to the loops.
    succ: Vec<Vec<(usize, Edge)>>,
    /// CFG nodes of each statement label (loop headers appear twice).
    at: HashMap<Label, Vec<usize>>,
    /// Do-while loops (their test comes before the back edge).
    do_while: HashSet<Label>,
    /// Loops whose body certainly runs (a first iteration) whenever the loop is reached, in
    /// every copy the CFG has of them; `skippable` the loops some copy may skip.
    pub(crate) entered: HashSet<Label>,
    skippable: HashSet<Label>,
    /// Per node, its unrolled-iteration context (an index into `ctxs`).
    ctx: Vec<usize>,
    /// Unrolled-iteration contexts: the unrolled loops around a node, with the iteration each
    /// copy of the body stands for.
    ctxs: Vec<Vec<(Label, u32)>>,
    /// Loops with a block-wide barrier in their body, with the loops around them (outermost
    /// first): a path that bypasses one says so in its bounds.
    barrier_loops: HashMap<Label, Vec<Label>>,
    /// The shared and global memory accesses of each statement: a search records only the
    /// statements whose accesses may conflict with its source's.
    accesses: HashMap<Label, Signature>,
    /// What [`Cfg::reach`] found from a node for a source in no loop, per source signature
    /// (see [`Cfg::searched_from`]).
    plain: RefCell<HashMap<(usize, Blocking, Signature), Rc<Reach>>>,
    /// Search states visited so far, over all searches; past [`STATE_BUDGET`] the searches
    /// stop and their results are incomplete.
    visited: std::cell::Cell<u64>,
}

/// The arrays a statement accesses and how, sorted.
type Signature = Vec<(ArrayId, AccessKind)>;

/// Whether an access of `a` and one of `b` may conflict: one array, not both reads, not both
/// atomics (as the checker's own filter).
fn may_conflict(a: &Signature, b: &Signature) -> bool {
    a.iter()
        .any(|(x, xk)| b.iter().any(|(y, yk)| x == y && xk.conflicts_with(*yk)))
}

/// [`Signature`]s of the statements of `k` with shared or global accesses.
fn signatures(k: &Kernel) -> HashMap<Label, Signature> {
    let mut out = HashMap::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            let mut sig: Signature = ops
                .iter()
                .filter_map(|o| match o {
                    Op::Read(_, a) | Op::Write(a, _) | Op::Atomic(_, a, _) => Some(a),
                    // Async-pipeline ops stop the SDV checker before this stage (`sdv::check`).
                    Op::Assign(..)
                    | Op::Mbarrier(..)
                    | Op::AsyncCopy(_)
                    | Op::Wgmma(_)
                    | Op::AsyncGroup(_)
                    | Op::ProxyFence(_) => None,
                })
                .filter(|a| {
                    k.arrays
                        .get(a.array.0 as usize)
                        .is_some_and(|x| x.space != Space::Local)
                })
                .map(|a| (a.array, a.kind))
                .collect();
            sig.sort_by_key(|(a, kind)| (a.0, *kind as u8));
            sig.dedup();
            if !sig.is_empty() {
                out.insert(s.label, sig);
            }
        }
    });
    out
}

/// Per target label, what the paths to it say.
pub(crate) type Reach = HashMap<Label, BTreeSet<Reached>>;

struct LoopCtx {
    label: Label,
    cont: usize,
    brk: usize,
}

/// What one path to a statement says: the outermost crossed back edge among the source's loops
/// (depth, 1-based), whether it was crossed more than once, and the path's bounds (`First` for
/// the target's thread, `Last` for the source's).
pub(crate) type Reached = (Option<u32>, bool, Vec<Bound>, Vec<Bound>);

/// Where a path is relative to one of the source access's loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Pos {
    /// Still in the loop, having crossed its back edge 0, 1 or (2 =) more times.
    In(u8),
    /// Left by the test right after the source's iteration: that was the last one.
    LeftLast,
    /// Left some other way.
    LeftOther,
}

struct Builder<'a> {
    k: &'a Kernel,
    unif: &'a Uniformity,
    decided: &'a Decided,
    cfg: Cfg,
    loops: Vec<LoopCtx>,
    exit: usize,
    /// The unrolled loop iterations being built, and the context id of that stack.
    unrolling: Vec<(Label, u32)>,
    /// Trip counts of the unrolled loops.
    trips: HashMap<Label, usize>,
    cur_ctx: usize,
    ctx_ids: HashMap<Vec<(Label, u32)>, usize>,
}

/// Loops with a constant trip count up to this are unrolled into one body copy per iteration
/// (their uniform branches then fold per iteration).
const MAX_UNROLL_TRIPS: usize = 16;
/// At most this many copies of any statement (the product of the trip counts of the unrolled
/// loops around it): the interval search runs from every copy of a statement, and a query's
/// bounds name pairs of copies, so the cost grows with its square. Stopping only costs precision.
const MAX_COPIES: usize = 64;
/// Unrolling stops once the CFG has this many nodes.
const MAX_UNROLLED_NODES: usize = 4_000;

/// Search states the path analysis of one kernel may visit. Kernels whose paths between
/// barriers branch on many independent conditions can need exponentially many; past this the
/// kernel is inconclusive instead of running for minutes.
pub(crate) const STATE_BUDGET: u64 = 4_000_000;

impl Cfg {
    /// Whether the searches ran past [`STATE_BUDGET`] (their results are then incomplete).
    pub(crate) fn exhausted(&self) -> bool {
        self.visited.get() > STATE_BUDGET
    }

    /// Builds the CFG of `k`; barriers block according to their uniformity, and decided
    /// branches and loops have no bypass.
    pub(crate) fn build(k: &Kernel, unif: &Uniformity, decided: &Decided) -> Cfg {
        let mut b = Builder {
            k,
            unif,
            decided,
            cfg: Cfg {
                nodes: Vec::new(),
                succ: Vec::new(),
                at: HashMap::new(),
                do_while: HashSet::new(),
                entered: HashSet::new(),
                skippable: HashSet::new(),
                ctx: Vec::new(),
                ctxs: vec![Vec::new()],
                barrier_loops: HashMap::new(),
                accesses: signatures(k),
                plain: RefCell::new(HashMap::new()),
                visited: std::cell::Cell::new(0),
            },
            loops: Vec::new(),
            exit: 0,
            unrolling: Vec::new(),
            trips: HashMap::new(),
            cur_ctx: 0,
            ctx_ids: HashMap::from([(Vec::new(), 0)]),
        };
        let tree = crate::tree::LabelTree::new(k);
        crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
            if let StmtKind::Loop(Loop { body, .. }) = &s.kind {
                let mut barrier = false;
                crate::tree::for_each_stmt(body, &mut |x: &Stmt| {
                    barrier |= matches!(&x.kind, StmtKind::Barrier(bar, _) if bar.is_block_wide());
                });
                if barrier {
                    b.cfg.barrier_loops.insert(s.label, tree.get(s.label).loop_owners());
                }
            }
        });
        let entry = b.node(Node::Nop);
        b.exit = b.node(Node::Nop);
        let mut consts = param_consts(k);
        let end = b.block(&k.body, entry, &mut consts);
        b.edge(end, b.exit);
        let skippable = std::mem::take(&mut b.cfg.skippable);
        b.cfg.entered.retain(|l| !skippable.contains(l));
        b.cfg
    }

    /// For each target label reachable from `src` without crossing a blocking barrier whose
    /// accesses may conflict with `src`'s (no others are ever asked about), what each such path
    /// says (see [`Reached`]).
    ///
    /// A barrier-free stretch of the lock-step execution is a path here that crosses a loop's
    /// back edge once per iteration it moves on; when no path crosses it twice (every iteration
    /// of the loop passes a blocking barrier on every path), the two accesses are in consecutive
    /// iterations.
    pub(crate) fn reach(&self, src: Label, src_loops: &[Label], blocking: Blocking) -> Reach {
        let starts = self.at.get(&src).map(Vec::as_slice).unwrap_or_default();
        let Some(sig) = self.accesses.get(&src) else {
            // A statement without shared or global accesses (no caller asks about one): every
            // statement it reaches, unfiltered.
            return self.search(starts, src_loops, blocking, None);
        };
        if !src_loops.is_empty() {
            return self.search(starts, src_loops, blocking, Some(sig));
        }
        let mut out = Reach::new();
        for &s in starts {
            for (l, rs) in self.searched_from(s, blocking, sig).iter() {
                out.entry(*l).or_default().extend(rs.iter().cloned());
            }
        }
        out
    }

    /// [`Cfg::reach`] from node `s` for a source in no loop with accesses `sig`, memoized: a
    /// long straight-line kernel (1,500 statements of hashing) has one search per access, and
    /// each would walk the rest of the kernel again. A search that meets another such node in
    /// the state that node's own search starts from takes that node's result instead of
    /// walking on.
    fn searched_from(&self, s: usize, blocking: Blocking, sig: &Signature) -> Rc<Reach> {
        let key = (s, blocking, sig.clone());
        if let Some(r) = self.plain.borrow().get(&key) {
            return r.clone();
        }
        let r = Rc::new(self.search(&[s], &[], blocking, Some(sig)));
        self.plain.borrow_mut().insert(key, r.clone());
        r
    }

    /// The search of [`Cfg::reach`] from the nodes `starts`, recording the statements whose
    /// accesses may conflict with `sig` (all statements without one).
    fn search(&self, starts: &[usize], src_loops: &[Label], blocking: Blocking, sig: Option<&Signature>) -> Reach {
        let mut out = Reach::new();
        let depth_of: HashMap<Label, u32> = src_loops.iter().enumerate().map(|(i, l)| (*l, i as u32 + 1)).collect();
        let mut seen: HashSet<State> = HashSet::new();
        let mut queue: VecDeque<State> = VecDeque::new();
        let follow = |st: &State, t: usize, e: Edge| self.follow(st, t, e, src_loops, &depth_of);
        let start_pos = vec![Pos::In(0); src_loops.len()];
        for &s in starts {
            let st: State = (s, None, false, Vec::new(), start_pos.clone(), self.ctx[s], Vec::new());
            for &(t, e) in &self.succ[s] {
                let next = follow(&st, t, e);
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        while let Some(st) = queue.pop_front() {
            self.visited.set(self.visited.get() + 1);
            if self.exhausted() {
                break;
            }
            let n = st.0;
            match self.nodes[n] {
                Node::BlockBarrier => continue,
                Node::WarpBarrier if blocking == Blocking::BlockAndWarp => continue,
                Node::Stmt(l) if sig.is_none_or(|sig| self.accesses.get(&l).is_some_and(|t| may_conflict(sig, t))) => {
                    let unrolled = |c: usize| self.ctxs[c].iter().map(|(l, j)| Bound::Iter(*l, *j));
                    let mut at_target: Vec<Bound> = st.3.iter().map(|l| Bound::Iter(*l, 0)).collect();
                    at_target.extend(unrolled(self.ctx[n]));
                    let mut at_source: Vec<Bound> = src_loops
                        .iter()
                        .zip(&st.4)
                        .filter(|(_, p)| **p == Pos::LeftLast)
                        .map(|(l, _)| Bound::Last(*l))
                        .collect();
                    at_source.extend(unrolled(st.5));
                    at_target.extend(st.6.iter().filter(|s| s.2).map(|s| Bound::Skipped(s.0)));
                    at_source.extend(st.6.iter().filter(|s| s.1).map(|s| Bound::Skipped(s.0)));
                    at_target.sort();
                    at_target.dedup();
                    at_source.sort();
                    out.entry(l).or_default().insert((st.1, st.2, at_target, at_source));
                }
                _ => {}
            }
            if let Node::Stmt(_) = self.nodes[n] {
                // In the state a search from this node starts in: what that search found
                // is what walking on would find.
                let root = src_loops.is_empty()
                    && st.1.is_none()
                    && !st.2
                    && st.3.is_empty()
                    && st.6.is_empty()
                    && st.5 == self.ctx[n];
                if let (true, Some(sig)) = (root, sig) {
                    if let Some(r) = self.plain.borrow().get(&(n, blocking, sig.clone())) {
                        for (l, rs) in r.iter() {
                            out.entry(*l).or_default().extend(rs.iter().cloned());
                        }
                        continue;
                    }
                }
            }
            for &(t, e) in &self.succ[n] {
                let next = follow(&st, t, e);
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        out
    }

    /// The search state after moving from state `st` along edge `e` to node `t`; `depth_of`
    /// gives the depth (1-based) of each of the source's loops `src_loops`.
    fn follow(&self, st: &State, t: usize, e: Edge, src_loops: &[Label], depth_of: &HashMap<Label, u32>) -> State {
        let (_, m, many, fresh, pos, start_ctx, skipped) = st;
        let (mut m, mut many, mut fresh, mut pos) = (*m, *many, fresh.clone(), pos.clone());
        let mut skipped = skipped.clone();
        match e {
            Edge::Plain => {}
            Edge::Skip(l) => {
                if let Some(d) = depth_of.get(&l) {
                    pos[*d as usize - 1] = Pos::LeftOther;
                }
                if let Some(around) = self.barrier_loops.get(&l) {
                    // The source's values are those of the bypass when no loop around both
                    // has moved on since the source ran.
                    let common = common_depth(src_loops, around);
                    let src_ok = m.is_none_or(|d| d as usize > common);
                    if let Err(i) = skipped.binary_search_by_key(&l, |x| x.0) {
                        skipped.insert(i, (l, src_ok, true));
                    }
                }
            }
            Edge::Back(l) => {
                (m, many) = cross_back_edge(m, many, depth_of.get(&l).copied());
                fresh.retain(|x| *x != l);
                for s in skipped.iter_mut() {
                    if self.barrier_loops.get(&s.0).is_some_and(|around| around.contains(&l)) {
                        s.2 = false;
                    }
                }
                if let Some(d) = depth_of.get(&l) {
                    if let Pos::In(c) = &mut pos[*d as usize - 1] {
                        *c = (*c + 1).min(2);
                    }
                }
            }
            Edge::Enter(l) => {
                if let Err(i) = fresh.binary_search(&l) {
                    fresh.insert(i, l);
                }
            }
            Edge::Exit(l) | Edge::Leave(l) => {
                if let Some(d) = depth_of.get(&l) {
                    let p = &mut pos[*d as usize - 1];
                    // The test fails at the head of the iteration after the source's one:
                    // after one back edge, or (do-while) before any.
                    let last_count = if self.do_while.contains(&l) { 0 } else { 1 };
                    *p = match *p {
                        Pos::In(c) if c == last_count && matches!(e, Edge::Exit(_)) => Pos::LeftLast,
                        Pos::In(_) => Pos::LeftOther,
                        left => left,
                    };
                }
            }
        }
        (t, m, many, fresh, pos, *start_ctx, skipped)
    }
}

/// A state of the search of [`Cfg::reach`]: node, outermost crossed depth, crossed more than
/// once, loops entered and not iterated since (sorted), position in each of the source's loops,
/// the unrolled-iteration context of the start node, and the barrier loops bypassed (sorted;
/// with whether that bypass is in the source's and in the current iteration of every loop
/// around the bypassed one).
type State = (
    usize,
    Option<u32>,
    bool,
    Vec<Label>,
    Vec<Pos>,
    usize,
    Vec<(Label, bool, bool)>,
);

/// (outermost crossed depth, crossed more than once) after crossing the back edge `crossed` (a
/// depth, if one of the source's loops) in state (m, many).
fn cross_back_edge(m: Option<u32>, many: bool, crossed: Option<u32>) -> (Option<u32>, bool) {
    match (m, crossed) {
        (_, None) => (m, many),
        (None, Some(b)) => (Some(b), false),
        (Some(a), Some(b)) if b < a => (Some(b), false),
        (Some(a), Some(b)) if b == a => (Some(a), true),
        (Some(a), Some(_)) => (Some(a), many),
    }
}

impl<'a> Builder<'a> {
    fn node(&mut self, n: Node) -> usize {
        self.cfg.nodes.push(n);
        self.cfg.succ.push(Vec::new());
        self.cfg.ctx.push(self.cur_ctx);
        self.cfg.nodes.len() - 1
    }

    /// Enters (`Some`) or leaves (`None`) one unrolled iteration.
    fn set_unrolled(&mut self, it: Option<(Label, u32)>) {
        match it {
            Some(x) => self.unrolling.push(x),
            None => {
                self.unrolling.pop();
            }
        }
        let next = self.cfg.ctxs.len();
        let id = *self.ctx_ids.entry(self.unrolling.clone()).or_insert(next);
        if id == next {
            self.cfg.ctxs.push(self.unrolling.clone());
        }
        self.cur_ctx = id;
    }

    /// The constants at the head of each iteration when `for`/`while` loop runs a constant
    /// number of times (at most [`MAX_UNROLL_TRIPS`]): its test folds at every head, with the
    /// variables only its step changes known there.
    fn unrolled_heads(&self, lp: &Loop, consts: &Consts) -> Option<Vec<Consts>> {
        if lp.kind == LoopKind::DoWhile || !lp.header.is_empty() || self.cfg.nodes.len() > MAX_UNROLLED_NODES {
            return None;
        }
        let copies: usize = self.unrolling.iter().map(|(l, _)| self.trips[l]).product();
        let max_trips = MAX_UNROLL_TRIPS.min(MAX_COPIES / copies.max(1));
        // At every head: the entry values of what the body does not change, and what the step
        // computes from them.
        let body_mods = modified_vars(&[], &lp.body, &[]);
        let mut head = consts.clone();
        head.retain(|v, _| !body_mods.contains(v));
        let mut heads = Vec::new();
        loop {
            match fold(self.k, &head, &lp.cond)? {
                0 => return Some(heads),
                _ if heads.len() >= max_trips => return None,
                _ => {}
            }
            heads.push(head.clone());
            for st in &lp.step {
                let StmtKind::Basic(ops) = &st.kind else {
                    return None;
                };
                apply_ops(self.k, ops, &mut head);
            }
        }
    }

    fn edge(&mut self, a: usize, b: usize) {
        self.cfg.succ[a].push((b, Edge::Plain));
    }

    fn edge_of(&mut self, a: usize, b: usize, e: Edge) {
        self.cfg.succ[a].push((b, e));
    }

    fn stmt_node(&mut self, l: Label) -> usize {
        let n = self.node(Node::Stmt(l));
        self.cfg.at.entry(l).or_default().push(n);
        n
    }

    fn block(&mut self, b: &Block, mut cur: usize, consts: &mut Consts) -> usize {
        for s in &b.stmts {
            cur = self.stmt(s, cur, consts);
        }
        cur
    }

    /// A jump statement: goes to `target` along `e`, and also falls through when not all
    /// threads jump.
    fn jump(&mut self, s: &Stmt, cur: usize, target: usize, e: Edge) -> usize {
        let n = self.stmt_node(s.label);
        self.edge(cur, n);
        self.edge_of(n, target, e);
        if self.unif.level(s.label) == Level::Block {
            self.node(Node::Nop) // unreachable continuation
        } else {
            n
        }
    }

    fn stmt(&mut self, s: &Stmt, cur: usize, consts: &mut Consts) -> usize {
        match &s.kind {
            StmtKind::Basic(ops) => {
                let n = self.stmt_node(s.label);
                self.edge(cur, n);
                apply_ops(self.k, ops, consts);
                n
            }
            StmtKind::Barrier(bar, _) => {
                let level = self.unif.level(s.label);
                let kind = match bar {
                    b if b.is_block_wide() && level == Level::Block => Node::BlockBarrier,
                    Barrier::Warp if level != Level::Thread => Node::WarpBarrier,
                    _ => Node::Nop,
                };
                let n = self.node(kind);
                self.cfg.at.entry(s.label).or_default().push(n);
                self.edge(cur, n);
                n
            }
            StmtKind::Assume(_) => cur,
            StmtKind::Break => match self.loops.last().map(|l| (l.brk, l.label)) {
                Some((t, l)) => self.jump(s, cur, t, Edge::Leave(l)),
                None => cur,
            },
            StmtKind::Continue => match self.loops.last().map(|l| l.cont) {
                Some(t) => self.jump(s, cur, t, Edge::Plain),
                None => cur,
            },
            StmtKind::Return { .. } => {
                let exit = self.exit;
                self.jump(s, cur, exit, Edge::Plain)
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let c = fold(self.k, consts, cond).or_else(|| self.decided.branches.get(&s.label).map(|&t| t as i64));
                let mut c_then = consts.clone();
                let mut c_else = consts.clone();
                let out = match c {
                    Some(x) if x != 0 => self.block(then_blk, cur, &mut c_then),
                    Some(_) => self.block(else_blk, cur, &mut c_else),
                    None => {
                        let then_end = self.block(then_blk, cur, &mut c_then);
                        // Lock step: threads that skipped `then` and threads that ran it both
                        // reach the `else` branch.
                        let else_start = self.node(Node::Nop);
                        self.edge(cur, else_start);
                        self.edge(then_end, else_start);
                        let else_end = self.block(else_blk, else_start, &mut c_else);
                        let join = self.node(Node::Nop);
                        self.edge(else_end, join);
                        self.edge(then_end, join);
                        join
                    }
                };
                consts.retain(|v, x| c_then.get(v) == Some(x) && c_else.get(v) == Some(x));
                if c.is_some() {
                    let kept = if c == Some(0) { c_else } else { c_then };
                    *consts = kept;
                }
                out
            }
            StmtKind::Loop(lp) => self.loop_(s, lp, cur, consts),
        }
    }

    fn loop_(&mut self, s: &Stmt, lp: &Loop, cur: usize, consts: &mut Consts) -> usize {
        let mods = modified_vars(&lp.header, &lp.body, &lp.step);
        if let Some(heads) = self.unrolled_heads(lp, consts) {
            if heads.is_empty() {
                self.cfg.skippable.insert(s.label);
            } else {
                self.cfg.entered.insert(s.label);
            }
            self.trips.insert(s.label, heads.len());
            return self.unrolled_loop(s.label, lp, &heads, cur, consts, &mods);
        }
        // Whether the first test certainly passes (then a barrier in the body cannot be skipped).
        let mut first = consts.clone();
        let mut n = cur;
        let body_start = self.node(Node::Nop);
        let exit = self.node(Node::Nop);
        let cont = self.node(Node::Nop);
        if lp.kind != LoopKind::DoWhile {
            for h in &lp.header {
                n = self.stmt(h, n, &mut first);
            }
            self.edge_of(n, body_start, Edge::Enter(s.label));
            let decided = self.decided.entered.contains(&s.label);
            if !decided && fold(self.k, &first, &lp.cond).is_none_or(|x| x == 0) {
                self.edge_of(n, exit, Edge::Skip(s.label));
                self.cfg.skippable.insert(s.label);
            } else {
                self.cfg.entered.insert(s.label);
            }
        } else {
            self.cfg.do_while.insert(s.label);
            self.cfg.entered.insert(s.label);
            self.edge_of(cur, body_start, Edge::Enter(s.label));
        }
        let mut inner = consts.clone();
        inner.retain(|v, _| !mods.contains(v));
        self.loops.push(LoopCtx {
            label: s.label,
            cont,
            brk: exit,
        });
        let body_end = self.block(&lp.body, body_start, &mut inner.clone());
        self.edge(body_end, cont);
        let mut m = cont;
        for st in &lp.step {
            m = self.stmt(st, m, &mut inner.clone());
        }
        self.loops.pop();
        let again = self.node(Node::Nop);
        if lp.kind == LoopKind::DoWhile {
            // `body`, `header`, test: the header ends the iteration (as in the symbolic walk).
            for hs in &lp.header {
                m = self.stmt(hs, m, &mut inner.clone());
            }
            self.edge_of(m, exit, Edge::Exit(s.label));
            self.edge_of(m, again, Edge::Back(s.label));
            self.edge(again, body_start);
        } else {
            // The back edge: the rest of the iteration (header, test) belongs to the next one.
            self.edge_of(m, again, Edge::Back(s.label));
            let mut h = again;
            for hs in &lp.header {
                h = self.stmt(hs, h, &mut inner.clone());
            }
            self.edge(h, body_start);
            self.edge_of(h, exit, Edge::Exit(s.label));
        }
        consts.retain(|v, _| !mods.contains(v));
        exit
    }
}

impl Builder<'_> {
    /// One body copy per iteration, joined by the loop's back edges; leaving the last copy (or
    /// any copy by `break`) is not a test failure after a summarised iteration, so it is a
    /// `Leave` edge.
    fn unrolled_loop(
        &mut self,
        label: Label,
        lp: &Loop,
        heads: &[Consts],
        cur: usize,
        consts: &mut Consts,
        mods: &[VarId],
    ) -> usize {
        let exit = self.node(Node::Nop);
        let mut prev: Option<usize> = None;
        for (j, head) in heads.iter().enumerate() {
            self.set_unrolled(Some((label, j as u32)));
            let body_start = self.node(Node::Nop);
            let cont = self.node(Node::Nop);
            match prev {
                None => self.edge_of(cur, body_start, Edge::Enter(label)),
                Some(m) => self.edge_of(m, body_start, Edge::Back(label)),
            }
            self.loops.push(LoopCtx { label, cont, brk: exit });
            let mut inner = head.clone();
            let body_end = self.block(&lp.body, body_start, &mut inner);
            self.edge(body_end, cont);
            let mut m = cont;
            for st in &lp.step {
                m = self.stmt(st, m, &mut inner);
            }
            self.loops.pop();
            self.set_unrolled(None);
            prev = Some(m);
        }
        match prev {
            Some(m) => self.edge_of(m, exit, Edge::Leave(label)),
            None => self.edge_of(cur, exit, Edge::Leave(label)),
        }
        consts.retain(|v, _| !mods.contains(v));
        exit
    }
}

/// The constants after `ops`: assignments that fold are known, other written variables not.
fn apply_ops(k: &Kernel, ops: &[Op], consts: &mut Consts) {
    for op in ops {
        match op {
            Op::Assign(v, e) => match fold(k, consts, e) {
                Some(x) => {
                    consts.insert(*v, x);
                }
                None => {
                    consts.remove(v);
                }
            },
            Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => {
                consts.remove(v);
            }
            _ => {}
        }
    }
}

/// Barrier intervals of a kernel: iteration relations per pair of statement labels.
pub(crate) struct Intervals {
    /// The searches ran past their budget: the relations below are incomplete, and the kernel
    /// cannot be judged from them.
    pub(crate) exhausted: bool,
    /// (first, second) in text order → relations for threads of different warps, and for
    /// threads of the same warp.
    pairs: HashMap<(Label, Label), (BTreeSet<IterRelation>, BTreeSet<IterRelation>)>,
    /// Across-back-edge relations (of `pairs`, different warps) under which the two accesses may
    /// be more than one iteration apart; the others hold only between consecutive iterations.
    spread: HashSet<(Label, Label, IterRelation)>,
    /// Per pair and relation (different warps), the bounds of each path that gives it.
    bounds: HashMap<(Label, Label, IterRelation), BTreeSet<PathBounds>>,
}

impl Intervals {
    /// Computes the relations for every pair of the given access labels.
    pub(crate) fn compute(
        k: &Kernel,
        unif: &Uniformity,
        decided: &Decided,
        tree: &LabelTree,
        labels: &[Label],
    ) -> Intervals {
        let cfg = Cfg::build(k, unif, decided);
        let wanted: HashSet<Label> = labels.iter().copied().collect();
        let mut pairs: HashMap<(Label, Label), (BTreeSet<IterRelation>, BTreeSet<IterRelation>)> = HashMap::new();
        let mut spread = HashSet::new();
        let mut bounds: HashMap<(Label, Label, IterRelation), BTreeSet<PathBounds>> = HashMap::new();
        // Later accesses first: their memoized searches shorten the earlier ones'.
        for &a in labels.iter().rev() {
            if cfg.exhausted() {
                break;
            }
            let a_loops = tree.get(a).loop_owners();
            for (mode, blocking) in [(0, Blocking::BlockOnly), (1, Blocking::BlockAndWarp)] {
                for (b, ms) in cfg.reach(a, &a_loops, blocking) {
                    if !wanted.contains(&b) {
                        continue;
                    }
                    let b_loops = tree.get(b).loop_owners();
                    let common = common_depth(&a_loops, &b_loops);
                    let key = ordered(tree, a, b);
                    // Reached from the later statement: the earlier one runs in a later iteration.
                    let forward = key.0 == a;
                    let entry = pairs.entry(key).or_default();
                    let set = if mode == 0 { &mut entry.0 } else { &mut entry.1 };
                    for (m, many, first, last) in ms {
                        let rels: &[IterRelation] = match m {
                            // One statement against itself: its operations race either way round.
                            Some(d) if d as usize <= common && a == b => {
                                &[IterRelation::AcrossBackEdge(d), IterRelation::AcrossBackEdgeReversed(d)]
                            }
                            Some(d) if d as usize <= common && forward => &[IterRelation::AcrossBackEdge(d)],
                            Some(d) if d as usize <= common => &[IterRelation::AcrossBackEdgeReversed(d)],
                            _ => &[IterRelation::SameIteration],
                        };
                        for &rel in rels {
                            set.insert(rel);
                            // Same-warp paths are a subset of different-warp ones (more barriers
                            // block them): the different-warp paths decide for both.
                            if many && mode == 0 && rel != IterRelation::SameIteration {
                                spread.insert((key.0, key.1, rel));
                            }
                            if mode == 0 {
                                // Thread 1 runs the text-earlier statement; for a statement
                                // against itself the relation says which thread is the source.
                                let orientations: &[(u8, u8)] = match rel {
                                    _ if a != b && forward => &[(1, 2)],
                                    _ if a != b => &[(2, 1)],
                                    IterRelation::AcrossBackEdge(_) => &[(1, 2)],
                                    IterRelation::AcrossBackEdgeReversed(_) => &[(2, 1)],
                                    _ => &[(1, 2), (2, 1)],
                                };
                                for &(src_t, tgt_t) in orientations {
                                    let mut pb: PathBounds = first
                                        .iter()
                                        .filter(|f| match f {
                                            Bound::Iter(l, _) => b_loops.contains(l),
                                            _ => true,
                                        })
                                        .map(|f| (tgt_t, *f))
                                        .chain(last.iter().map(|l| (src_t, *l)))
                                        .collect();
                                    pb.sort();
                                    bounds.entry((key.0, key.1, rel)).or_default().insert(pb);
                                }
                            }
                        }
                    }
                }
            }
            // Two threads executing the same statement instance are in the same interval.
            let entry = pairs.entry((a, a)).or_default();
            entry.0.insert(IterRelation::SameIteration);
            entry.1.insert(IterRelation::SameIteration);
            bounds
                .entry((a, a, IterRelation::SameIteration))
                .or_default()
                .insert(Vec::new());
        }
        Intervals {
            exhausted: cfg.exhausted(),
            pairs,
            spread,
            bounds,
        }
    }

    /// What the barrier-free paths of accesses (first, second) in text order under `rel` say
    /// about where the threads are in their loops: one set of bounds per path, one of which
    /// holds; empty when some path says nothing.
    pub(crate) fn bounds(&self, a: Label, b: Label, rel: IterRelation) -> Vec<PathBounds> {
        match self.bounds.get(&(a, b, rel)) {
            Some(alts) if !alts.iter().any(Vec::is_empty) => {
                // A path whose bounds include another's adds nothing to the disjunction.
                let weaker = |x: &PathBounds, y: &PathBounds| x != y && x.iter().all(|e| y.contains(e));
                alts.iter()
                    .filter(|y| !alts.iter().any(|x| weaker(x, y)))
                    .cloned()
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Relations for (first, second) in text order: (different warps, same warp).
    pub(crate) fn get(&self, a: Label, b: Label) -> Option<&(BTreeSet<IterRelation>, BTreeSet<IterRelation>)> {
        self.pairs.get(&(a, b))
    }

    /// Whether accesses (first, second) in text order meet under across-back-edge relation
    /// `rel` only in consecutive iterations of the relation's loop.
    pub(crate) fn consecutive(&self, a: Label, b: Label, rel: IterRelation) -> bool {
        matches!(
            rel,
            IterRelation::AcrossBackEdge(_) | IterRelation::AcrossBackEdgeReversed(_)
        ) && !self.spread.contains(&(a, b, rel))
    }
}

/// The pair in text (post-order) order.
pub(crate) fn ordered(tree: &LabelTree, a: Label, b: Label) -> (Label, Label) {
    if tree.get(a).post <= tree.get(b).post {
        (a, b)
    } else {
        (b, a)
    }
}

/// Number of loops shared by two loop-owner lists (outermost first).
pub(crate) fn common_depth(a: &[Label], b: &[Label]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdv::testkit::*;
    use BinOp::*;

    /// Straight-line stretches with branches, a loop, atomics and a second array between them:
    /// the memoized searches of top-level accesses find exactly what fresh searches find.
    #[test]
    fn memoized_searches_agree_with_fresh_ones() {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("sh", Space::Shared);
        let other = b.array("other", Space::Shared);
        let x = b.local("x");
        let s = b.local("s");
        let mut body = vec![b.write(sh, tid())];
        for d in 1..4 {
            body.push(b.read(Some(x), sh, ub(Add, tid(), u(d))));
        }
        let w = b.write(sh, ub(Add, tid(), u(1)));
        body.push(b.if_(ub(Lt, tid(), u(8)), vec![w], vec![]));
        body.push(b.atomic(other, u(0)));
        body.push(b.read(Some(x), other, tid()));
        let rd = b.read(Some(x), sh, ub(Add, tid(), var(s)));
        let wr = b.write(sh, tid());
        body.extend(b.for_(s, u(0), ub(Lt, var(s), u(40)), ub(Add, var(s), u(1)), vec![rd, wr]));
        for d in 0..3 {
            body.push(b.read(Some(x), sh, ub(Add, tid(), u(d))));
        }
        body.push(b.sync());
        body.push(b.write(other, tid()));
        body.push(b.read(Some(x), sh, tid()));
        let k = b.finish(body);
        crate::smt::fresh_context(|| {
            let unif = crate::sdv::uniformity(&k);
            let tree = LabelTree::new(&k);
            let memo = Cfg::build(&k, &unif, &Default::default());
            let fresh = Cfg::build(&k, &unif, &Default::default());
            let mut labels: Vec<Label> = fresh.accesses.keys().copied().collect();
            labels.sort_by_key(|l| std::cmp::Reverse(tree.get(*l).post));
            assert!(labels.len() > 10);
            for blocking in [Blocking::BlockOnly, Blocking::BlockAndWarp] {
                for &l in &labels {
                    let loops = tree.get(l).loop_owners();
                    let starts = fresh.at[&l].clone();
                    let want = fresh.search(&starts, &loops, blocking, Some(&fresh.accesses[&l]));
                    assert_eq!(memo.reach(l, &loops, blocking), want, "{l:?}");
                }
            }
            // The memo was used: later accesses' searches were reused by earlier ones.
            assert!(!memo.plain.borrow().is_empty());
        });
    }
}
