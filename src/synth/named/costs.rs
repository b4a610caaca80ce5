//! The named cost model: a position's base cost (loops and conditions around it), the factor
//! of a sync run by some of the block's warps, and the cost of the kernel's own barriers.

use super::roles::WARP;
use super::settings::NamedSettings;
use crate::synth::space::SynthOptions;
use autosync_oracle::ir::{Barrier, Expr, Kernel, StmtKind};
use autosync_oracle::tree::{for_each_stmt, LabelTree, Position};

/// The cost of a statement at `pos` before its kind factor: LC^loops · IC^conds.
pub fn base_cost(tree: &LabelTree, pos: Position, opts: &SynthOptions) -> f64 {
    let info = tree.get(pos.label());
    opts.cost_loop.powi(info.cost_loops() as i32) * opts.cost_if.powi(info.conds() as i32)
}

/// The kind factor of a sync run by `k` of the block's `total` warps (at least the setting's
/// minimum); an arrive costs `arrive_factor` times it.
pub fn sync_factor(k: u32, total: u32, s: &NamedSettings) -> f64 {
    (k as f64 / total.max(1) as f64).max(s.min_sync_factor)
}

/// Number and cost of the synchronization statements already in a kernel, under the named cost
/// model (for comparison with a synthesized placement).
pub fn existing_cost(k: &Kernel, opts: &SynthOptions) -> (u32, f64) {
    let tree = LabelTree::new(k);
    let total = k
        .launch
        .threads_per_block()
        .map_or(1, |t| t.div_ceil(WARP as u64) as u32);
    let s = &opts.named;
    let mut n = 0;
    let mut cost = 0.0;
    for_each_stmt(&k.body, &mut |st| {
        let StmtKind::Barrier(b, _) = &st.kind else { return };
        let base = base_cost(&tree, Position::After(st.label), opts);
        let warps = |c: &Expr| c.as_const().map_or(total, |v| (v as u32).div_ceil(WARP));
        let f = match b {
            Barrier::Block | Barrier::NamedSync { count: None, .. } => 1.0,
            Barrier::NamedSync { count: Some(c), .. } => sync_factor(warps(c), total, s),
            Barrier::NamedArrive { count, .. } => s.arrive_factor * sync_factor(warps(count), total, s),
            Barrier::Warp => return,
        };
        n += 1;
        cost += base * f;
    });
    (n, cost)
}
