//! Grid-wide barriers (`grid.sync()`) between the accesses of different blocks. A grid
//! barrier at the kernel's top level is passed by every thread of the grid once, so the
//! top-level statements split the kernel into phases: accesses in different phases are
//! ordered for threads of different blocks too. Grid barriers nested in a branch or loop are
//! block barriers only here (no phase boundary; fewer orderings, never more).

use crate::ir::*;
use crate::tree::visit_stmt;
use std::collections::HashMap;

/// The grid phase of every statement label (none when the kernel has no top-level grid barrier).
pub(crate) struct GridPhases {
    phase: HashMap<Label, usize>,
}

impl GridPhases {
    /// The phases of `k`.
    pub(crate) fn of(k: &Kernel) -> GridPhases {
        let mut phase = HashMap::new();
        let is_grid = |s: &Stmt| matches!(s.kind, StmtKind::Barrier(Barrier::Block, BarrierSyntax::GridSync));
        if !k.body.stmts.iter().any(is_grid) {
            return GridPhases { phase };
        }
        let mut current = 0;
        for s in &k.body.stmts {
            if is_grid(s) {
                current += 1;
                continue;
            }
            visit_stmt(s, &mut |t| {
                phase.insert(t.label, current);
            });
        }
        GridPhases { phase }
    }

    /// Whether a top-level grid barrier separates the statements labelled `a` and `b`.
    pub(crate) fn separated(&self, a: Label, b: Label) -> bool {
        match (self.phase.get(&a), self.phase.get(&b)) {
            (Some(x), Some(y)) => x != y,
            _ => false,
        }
    }
}
