//! The conflict jobs of a check: every access site, and per pair of sites that may conflict
//! one query per iteration relation of their barrier intervals (and one between blocks), with
//! what a race found would need (a non-last or non-first loop iteration, a load's own store).

use super::grid_phases;
use super::intervals::{common_depth, Intervals};
use super::mirror;
use super::options::SdvOptions;
use super::query::{Outcome, Pairing, Query};
use super::syntax;
use crate::ir::*;
use crate::report::*;
use crate::tree::{for_each_stmt, LabelTree, ScopeKind};
use std::collections::HashMap;

/// One memory access of the kernel.
#[derive(Clone, Copy)]
pub(super) struct Site<'k> {
    pub(super) label: Label,
    pub(super) op: usize,
    pub(super) access: &'k Access,
    /// The statement's span: where a macro's expansion or an inlined call is used.
    pub(super) place: Span,
}

/// One conflict query of a check and where its answer goes.
pub(super) struct Job<'k> {
    /// Indices of the two access sites.
    pub(super) sites: (usize, usize),
    /// The spans of their statements.
    pub(super) places: [Span; 2],
    pub(super) scope: RaceScope,
    /// The iteration relation (intra-block queries).
    pub(super) rel: Option<IterRelation>,
    /// See [`not_last_loop`].
    pub(super) not_last: Option<(Label, u32)>,
    /// See [`not_first_loops`].
    pub(super) not_first: Vec<(Label, u32)>,
    pub(super) q: Query<'k>,
    /// The load's own earlier store, for a race that may be benign (see [`Query::reads_own`];
    /// kept out of `q`, which is asked as it is).
    pub(super) own_read: Option<(u8, (Label, usize, &'k Access))>,
}

/// A job's outcome, what kind of race it found, and the relation to record.
pub(super) type Answer = (Outcome, Nature, Option<IterRelation>);

/// What kind of race a satisfiable query found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Nature {
    /// A race on some execution that nothing below excuses.
    Harmful,
    /// Every racing execution stores the same value (or the load sees it anyway).
    Benign,
    /// Only overlapping layouts make it: these parameters' values put two distinct elements
    /// of a global array at one address.
    Overlap(Vec<String>),
}

/// Every access to a shared or global array, in text order.
pub(super) fn access_sites<'k>(k: &'k Kernel, tree: &LabelTree) -> Vec<Site<'k>> {
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s: &'k Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for (op, o) in ops.iter().enumerate() {
                let access = match o {
                    Op::Read(_, a) | Op::Write(a, _) | Op::Atomic(_, a, _) => a,
                    // Async-pipeline ops stop the SDV checker before this stage (`sdv::check`).
                    Op::Assign(..)
                    | Op::Mbarrier(..)
                    | Op::AsyncCopy(_)
                    | Op::Wgmma(_)
                    | Op::AsyncGroup(_)
                    | Op::ProxyFence(_) => continue,
                };
                let local = k
                    .arrays
                    .get(access.array.0 as usize)
                    .is_none_or(|a| a.space == Space::Local);
                if !local {
                    out.push(Site {
                        label: s.label,
                        op,
                        access,
                        place: s.span,
                    });
                }
            }
        }
    });
    out.sort_by_key(|s| (tree.get(s.label).post, s.op));
    out
}

/// Cheap filter: same array, not both reads, not both atomics.
pub(super) fn may_conflict(k: &Kernel, a: &Access, b: &Access) -> bool {
    a.array == b.array && k.array(a.array).space != Space::Local && a.kind.conflicts_with(b.kind)
}

/// Every conflict query the access pairs need, in a fixed order: per pair of sites that may
/// conflict (in text order), one per iteration relation of their barrier intervals, then one
/// between blocks when the array is global, the grid may have several blocks and no top-level
/// grid barrier separates the two.
pub(super) fn jobs<'k>(
    k: &Kernel,
    opts: &SdvOptions,
    sites: &[Site<'k>],
    tree: &LabelTree,
    iv: &Intervals,
) -> Vec<Job<'k>> {
    let grid_may_exceed_one = k
        .launch
        .grid_dim
        .is_none_or(|g| g.iter().map(|&x| x as u64).product::<u64>() > 1);
    let phases = grid_phases::GridPhases::of(k);
    let mut jobs: Vec<Job> = Vec::new();
    for (i, a) in sites.iter().enumerate() {
        for (j, b) in sites.iter().enumerate().skip(i) {
            if !may_conflict(k, a.access, b.access) {
                continue;
            }
            intra_block_jobs(k, tree, iv, (i, a), (j, b), &mut jobs);
            let global = k.array(a.access.array).space == Space::Global;
            if opts.check_inter_block && global && grid_may_exceed_one && !phases.separated(a.label, b.label) {
                let q = Query {
                    a: (a.label, a.op, a.access),
                    b: (b.label, b.op, b.access),
                    shared: Vec::new(),
                    other_iteration: None,
                    consecutive: false,
                    pairing: Pairing::InterBlock,
                    lockstep_group: None,
                    bounds: Vec::new(),
                    also: Vec::new(),
                    differ: false,
                    reads_own: None,
                    same_coordinates: false,
                };
                jobs.push(Job {
                    sites: (i, j),
                    places: [a.place, b.place],
                    scope: RaceScope::InterBlock,
                    rel: None,
                    not_last: None,
                    not_first: Vec::new(),
                    q,
                    own_read: None,
                });
            }
        }
    }
    jobs
}

/// The intra-block jobs of sites `a` (index `i`) and `b` (index `j`, not earlier in text
/// order): one per iteration relation under which a barrier-free path connects them.
pub(super) fn intra_block_jobs<'k>(
    k: &Kernel,
    tree: &LabelTree,
    iv: &Intervals,
    (i, a): (usize, &Site<'k>),
    (j, b): (usize, &Site<'k>),
    jobs: &mut Vec<Job<'k>>,
) {
    let Some((cross, same)) = iv.get(a.label, b.label) else {
        return;
    };
    let common: Vec<Label> = {
        let la = tree.get(a.label).loop_owners();
        let lb = tree.get(b.label).loop_owners();
        let n = common_depth(&la, &lb);
        la[..n].to_vec()
    };
    for &rel in cross {
        let shared = match rel {
            IterRelation::SameIteration | IterRelation::NotLastIteration(_) | IterRelation::NotFirstIteration(_) => {
                common.clone()
            }
            IterRelation::AcrossBackEdge(d) | IterRelation::AcrossBackEdgeReversed(d) => {
                common[..(d as usize - 1).min(common.len())].to_vec()
            }
            IterRelation::Unknown => Vec::new(),
        };
        let same_instance = i == j && rel == IterRelation::SameIteration;
        let q = Query {
            a: (a.label, a.op, a.access),
            b: (b.label, b.op, b.access),
            other_iteration: match rel {
                IterRelation::AcrossBackEdge(d) => common.get(d as usize - 1).map(|l| (*l, true)),
                IterRelation::AcrossBackEdgeReversed(d) => common.get(d as usize - 1).map(|l| (*l, false)),
                _ => None,
            },
            consecutive: iv.consecutive(a.label, b.label, rel),
            shared,
            pairing: if same.contains(&rel) {
                Pairing::AnyThreads
            } else {
                Pairing::DifferentWarps
            },
            lockstep_group: k.launch.warp_sync.filter(|_| !same_instance),
            bounds: iv.bounds(a.label, b.label, rel),
            also: Vec::new(),
            differ: false,
            reads_own: None,
            same_coordinates: false,
        };
        jobs.push(Job {
            sites: (i, j),
            places: [a.place, b.place],
            scope: RaceScope::IntraBlock,
            rel: Some(rel),
            not_last: not_last_loop(tree, a.label, b.label, rel),
            not_first: not_first_loops(tree, a.label, b.label, rel),
            q,
            own_read: None,
        });
    }
}

/// Gives every intra-block job of a store and a load of the same size the load's own earlier
/// store to the same bytes, when it has one (see [`syntax::own_earlier_writes`]): such a race
/// may be benign.
pub(super) fn mark_own_reads<'k>(k: &Kernel, sites: &[Site<'k>], jobs: &mut [Job<'k>]) {
    let own = syntax::own_earlier_writes(k);
    if own.is_empty() {
        return;
    }
    let by_pos: HashMap<(Label, usize), &'k Access> = sites.iter().map(|s| ((s.label, s.op), s.access)).collect();
    for job in jobs.iter_mut().filter(|j| j.scope == RaceScope::IntraBlock) {
        let (a, b) = (job.q.a, job.q.b);
        let reader = match (a.2.kind, b.2.kind) {
            (AccessKind::Write, AccessKind::Read) => 2,
            (AccessKind::Read, AccessKind::Write) => 1,
            _ => continue,
        };
        let (read, store) = if reader == 1 { (a, b) } else { (b, a) };
        if read.2.size != store.2.size {
            continue;
        }
        if let Some(&(l, op)) = own.get(&(read.0, read.1)) {
            if let Some(&acc) = by_pos.get(&(l, op)) {
                job.own_read = Some((reader, (l, op, acc)));
            }
        }
    }
}

/// For a same-iteration pair whose first access (in text order) is in loops the second is
/// after: the innermost of them and its depth among the first access's loops.
pub(super) fn not_last_loop(tree: &LabelTree, a: Label, b: Label, rel: IterRelation) -> Option<(Label, u32)> {
    if rel != IterRelation::SameIteration || a == b {
        return None;
    }
    let la = tree.get(a).loop_owners();
    let common = common_depth(&la, &tree.get(b).loop_owners());
    (la.len() > common).then(|| (*la.last().expect("deeper than common"), la.len() as u32))
}

/// For a same-iteration pair whose second access (in text order) is in loops the first is
/// before: those loops that can repeat (a lowered `switch` runs once), outermost first (a
/// barrier in an outer body costs less), each with its depth among the second access's loops.
pub(super) fn not_first_loops(tree: &LabelTree, a: Label, b: Label, rel: IterRelation) -> Vec<(Label, u32)> {
    if rel != IterRelation::SameIteration || a == b {
        return Vec::new();
    }
    let common = common_depth(&tree.get(a).loop_owners(), &tree.get(b).loop_owners());
    let loops = tree.get(b).scopes.iter().filter(|s| s.kind == ScopeKind::LoopBody);
    loops
        .enumerate()
        .skip(common)
        .filter(|(_, s)| !s.once)
        .filter_map(|(i, s)| Some((s.owner?, i as u32 + 1)))
        .collect()
}

/// What [`mirror::mirrors`] reads of the jobs.
pub(super) fn shapes<'j, 'k>(jobs: &'j [Job<'k>]) -> Vec<mirror::Shape<'j, 'k>> {
    jobs.iter()
        .map(|j| mirror::Shape {
            sites: j.sites,
            rel: j.rel,
            plain_intra: j.scope == RaceScope::IntraBlock && j.own_read.is_none(),
            q: &j.q,
        })
        .collect()
}
