//! Barrier intervals: for every pair of access statements, the iteration relations under which
//! one thread can execute the first and another thread the second with no barrier that both
//! execute in between.
//!
//! The kernel is turned into a control-flow graph of the lock-step (predicated) execution: the
//! `then` branch can fall into the `else` branch, a branch or loop body that may be skipped has a
//! bypass edge, and a `break`/`continue`/`return` under a non-uniform predicate also falls
//! through (the other threads go on). Barrier nodes block paths; a path that crosses the back
//! edge of a loop shared by both statements is classified by the outermost such loop.

use super::fold::{fold, param_consts, Consts};
use super::symex::modified_vars;
use super::uniform::{Level, Uniformity};
use crate::ir::*;
use crate::report::IterRelation;
use crate::tree::LabelTree;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

/// Which barriers a path may not cross.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocking {
    /// Only block-wide barriers (threads of different warps).
    BlockOnly,
    /// Block-wide barriers and `__syncwarp` (threads of the same warp).
    BlockAndWarp,
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
    /// Successors; the label is the loop whose back edge this edge is.
    succ: Vec<Vec<(usize, Option<Label>)>>,
    /// CFG nodes of each statement label (loop headers appear twice).
    at: HashMap<Label, Vec<usize>>,
}

struct LoopCtx {
    cont: usize,
    brk: usize,
}

struct Builder<'a> {
    k: &'a Kernel,
    unif: &'a Uniformity,
    cfg: Cfg,
    loops: Vec<LoopCtx>,
    exit: usize,
}

impl Cfg {
    /// Builds the CFG of `k`; barriers block according to their uniformity.
    pub(crate) fn build(k: &Kernel, unif: &Uniformity) -> Cfg {
        let mut b = Builder {
            k,
            unif,
            cfg: Cfg {
                nodes: Vec::new(),
                succ: Vec::new(),
                at: HashMap::new(),
            },
            loops: Vec::new(),
            exit: 0,
        };
        let entry = b.node(Node::Nop);
        b.exit = b.node(Node::Nop);
        let mut consts = param_consts(k);
        let end = b.block(&k.body, entry, &mut consts);
        b.edge(end, b.exit);
        b.cfg
    }

    /// For each target label reachable from `src` without crossing a blocking barrier: the
    /// outermost loop depth (1-based, among `src`'s loops) whose back edge the path crosses (or
    /// `None` for a path inside one iteration of all of `src`'s loops), and whether the path
    /// crosses that back edge more than once.
    ///
    /// A barrier-free stretch of the lock-step execution is a path here that crosses a loop's
    /// back edge once per iteration it moves on; when no path crosses it twice (every iteration
    /// of the loop passes a blocking barrier on every path), the two accesses are in consecutive
    /// iterations.
    fn reach(
        &self,
        src: Label,
        src_loops: &[Label],
        blocking: Blocking,
    ) -> HashMap<Label, BTreeSet<(Option<u32>, bool)>> {
        let mut out: HashMap<Label, BTreeSet<(Option<u32>, bool)>> = HashMap::new();
        let depth_of: HashMap<Label, u32> = src_loops.iter().enumerate().map(|(i, l)| (*l, i as u32 + 1)).collect();
        let mut seen: HashSet<(usize, Option<u32>, bool)> = HashSet::new();
        let mut queue: VecDeque<(usize, Option<u32>, bool)> = VecDeque::new();
        let starts = self.at.get(&src).cloned().unwrap_or_default();
        let push = |st: (usize, Option<u32>, bool), seen: &mut HashSet<_>, queue: &mut VecDeque<_>| {
            if seen.insert(st) {
                queue.push_back(st);
            }
        };
        // Crossing the back edge `crossed` (a depth, if one of `src`'s loops) in state (m, many).
        let step = |m: Option<u32>, many: bool, crossed: Option<u32>| match (m, crossed) {
            (_, None) => (m, many),
            (None, Some(b)) => (Some(b), false),
            (Some(a), Some(b)) if b < a => (Some(b), false),
            (Some(a), Some(b)) if b == a => (Some(a), true),
            (Some(a), Some(_)) => (Some(a), many),
        };
        for &s in &starts {
            for &(t, back) in &self.succ[s] {
                let (m, many) = step(None, false, back.and_then(|l| depth_of.get(&l).copied()));
                push((t, m, many), &mut seen, &mut queue);
            }
        }
        while let Some((n, m, many)) = queue.pop_front() {
            match self.nodes[n] {
                Node::BlockBarrier => continue,
                Node::WarpBarrier if blocking == Blocking::BlockAndWarp => continue,
                Node::Stmt(l) => {
                    out.entry(l).or_default().insert((m, many));
                }
                _ => {}
            }
            for &(t, back) in &self.succ[n] {
                let (m2, many2) = step(m, many, back.and_then(|l| depth_of.get(&l).copied()));
                push((t, m2, many2), &mut seen, &mut queue);
            }
        }
        out
    }
}

impl<'a> Builder<'a> {
    fn node(&mut self, n: Node) -> usize {
        self.cfg.nodes.push(n);
        self.cfg.succ.push(Vec::new());
        self.cfg.nodes.len() - 1
    }

    fn edge(&mut self, a: usize, b: usize) {
        self.cfg.succ[a].push((b, None));
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

    /// A jump statement: goes to `target`, and also falls through when not all threads jump.
    fn jump(&mut self, s: &Stmt, cur: usize, target: usize) -> usize {
        let n = self.stmt_node(s.label);
        self.edge(cur, n);
        self.edge(n, target);
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
                for op in ops {
                    match op {
                        Op::Assign(v, e) => match fold(self.k, consts, e) {
                            Some(x) => {
                                consts.insert(*v, x);
                            }
                            None => {
                                consts.remove(v);
                            }
                        },
                        Op::Read(Some(v), _) | Op::Atomic(Some(v), _) => {
                            consts.remove(v);
                        }
                        _ => {}
                    }
                }
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
            StmtKind::Break => match self.loops.last().map(|l| l.brk) {
                Some(t) => self.jump(s, cur, t),
                None => cur,
            },
            StmtKind::Continue => match self.loops.last().map(|l| l.cont) {
                Some(t) => self.jump(s, cur, t),
                None => cur,
            },
            StmtKind::Return => {
                let exit = self.exit;
                self.jump(s, cur, exit)
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => {
                let c = fold(self.k, consts, cond);
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
            StmtKind::Loop {
                kind,
                header,
                cond,
                body,
                step,
                ..
            } => self.loop_(s, *kind, header, cond, body, step, cur, consts),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn loop_(
        &mut self,
        s: &Stmt,
        kind: LoopKind,
        header: &[Stmt],
        cond: &Expr,
        body: &Block,
        step: &[Stmt],
        cur: usize,
        consts: &mut Consts,
    ) -> usize {
        let mods = modified_vars(header, body, step);
        // Whether the first test certainly passes (then a barrier in the body cannot be skipped).
        let mut first = consts.clone();
        let mut n = cur;
        let body_start = self.node(Node::Nop);
        let exit = self.node(Node::Nop);
        let cont = self.node(Node::Nop);
        if kind != LoopKind::DoWhile {
            for h in header {
                n = self.stmt(h, n, &mut first);
            }
            self.edge(n, body_start);
            if fold(self.k, &first, cond).is_none_or(|x| x == 0) {
                self.edge(n, exit);
            }
        } else {
            self.edge(cur, body_start);
        }
        let mut inner = consts.clone();
        inner.retain(|v, _| !mods.contains(v));
        self.loops.push(LoopCtx { cont, brk: exit });
        let body_end = self.block(body, body_start, &mut inner.clone());
        self.edge(body_end, cont);
        let mut m = cont;
        for st in step {
            m = self.stmt(st, m, &mut inner.clone());
        }
        self.loops.pop();
        let again = self.node(Node::Nop);
        if kind == LoopKind::DoWhile {
            // `body`, `header`, test: the header ends the iteration (as in the symbolic walk).
            for hs in header {
                m = self.stmt(hs, m, &mut inner.clone());
            }
            self.edge(m, exit);
            self.cfg.succ[m].push((again, Some(s.label)));
            self.edge(again, body_start);
        } else {
            // The back edge: the rest of the iteration (header, test) belongs to the next one.
            self.cfg.succ[m].push((again, Some(s.label)));
            let mut h = again;
            for hs in header {
                h = self.stmt(hs, h, &mut inner.clone());
            }
            self.edge(h, body_start);
            self.edge(h, exit);
        }
        consts.retain(|v, _| !mods.contains(v));
        exit
    }
}

/// Barrier intervals of a kernel: iteration relations per pair of statement labels.
pub(crate) struct Intervals {
    /// (first, second) in text order → relations for threads of different warps, and for
    /// threads of the same warp.
    pairs: HashMap<(Label, Label), (BTreeSet<IterRelation>, BTreeSet<IterRelation>)>,
    /// Across-back-edge relations (of `pairs`, different warps) under which the two accesses may
    /// be more than one iteration apart; the others hold only between consecutive iterations.
    spread: HashSet<(Label, Label, IterRelation)>,
}

impl Intervals {
    /// Computes the relations for every pair of the given access labels.
    pub(crate) fn compute(k: &Kernel, unif: &Uniformity, tree: &LabelTree, labels: &[Label]) -> Intervals {
        let cfg = Cfg::build(k, unif);
        let wanted: HashSet<Label> = labels.iter().copied().collect();
        let mut pairs: HashMap<(Label, Label), (BTreeSet<IterRelation>, BTreeSet<IterRelation>)> = HashMap::new();
        let mut spread = HashSet::new();
        for &a in labels {
            let a_loops = tree.get(a).loop_owners();
            for (mode, blocking) in [(0, Blocking::BlockOnly), (1, Blocking::BlockAndWarp)] {
                for (b, ms) in cfg.reach(a, &a_loops, blocking) {
                    if !wanted.contains(&b) {
                        continue;
                    }
                    let common = common_depth(&a_loops, &tree.get(b).loop_owners());
                    let key = ordered(tree, a, b);
                    // Reached from the later statement: the earlier one runs in a later iteration.
                    let forward = key.0 == a;
                    let entry = pairs.entry(key).or_default();
                    let set = if mode == 0 { &mut entry.0 } else { &mut entry.1 };
                    for (m, many) in ms {
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
                        }
                    }
                }
            }
            // Two threads executing the same statement instance are in the same interval.
            let entry = pairs.entry((a, a)).or_default();
            entry.0.insert(IterRelation::SameIteration);
            entry.1.insert(IterRelation::SameIteration);
        }
        Intervals { pairs, spread }
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
