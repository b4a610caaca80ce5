//! What the SDV checker reports besides races: block-wide barriers under a non-uniform
//! predicate, and why it does not check a kernel (named barriers, async pipelines).

use super::levels::{Level, Uniformity};
use super::uniform;
use crate::ir::*;
use crate::report::*;
use crate::tree::{for_each_stmt, LabelTree};

/// Why the SDV checker does not check `k` (named barriers or async pipelines), if it does not.
pub(super) fn not_for_sdv(k: &Kernel) -> Option<Inconclusive> {
    if let Some(span) = first_named_barrier(k) {
        return Some(Inconclusive {
            span,
            message: "kernel uses named barriers; use the named-barrier checker".into(),
        });
    }
    crate::tree::first_async_op(k).map(|span| Inconclusive {
        span,
        message: "kernel uses mbarriers or asynchronous copies; use the named-barrier checker".into(),
    })
}

pub(super) fn first_named_barrier(k: &Kernel) -> Option<Span> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            if b.is_named() && found.is_none() {
                found = Some(s.span);
            }
        }
    });
    found
}

/// Block-wide barriers whose predicate is not block-uniform.
pub(super) fn divergences(k: &Kernel, unif: &Uniformity, tree: &LabelTree) -> Vec<Divergence> {
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            let level = unif.level(s.label);
            if b.is_block_wide() && level != Level::Block {
                let cond = unif.cause(s.label).unwrap_or(s.label);
                let cond_span = tree.info.get(&cond).map_or(s.span, |i| i.span);
                out.push(Divergence {
                    barrier: s.label,
                    span: s.span,
                    cond_stmt: cond,
                    cond_span,
                    within_warp: level == Level::Thread,
                    across_blocks: false,
                });
            }
        }
    });
    // Grid barriers every thread of a block reaches together, but not every block.
    for (barrier, cond) in uniform::grid_divergent(k) {
        if out.iter().any(|d| d.barrier == barrier) {
            continue;
        }
        let span = tree.info.get(&barrier).map_or(k.span, |i| i.span);
        out.push(Divergence {
            barrier,
            span,
            cond_stmt: cond,
            cond_span: tree.info.get(&cond).map_or(span, |i| i.span),
            within_warp: false,
            across_blocks: true,
        });
    }
    out
}
