//! What synthesis reads off the kernel: the emission style it already uses, the named-barrier
//! IDs it takes (constant or computed) and those left for new barriers, a barrier's thread
//! count, a loop's body and induction variable.

use super::settings::{NamedSettings, NamedStyle};
use super::style;
use crate::synth::space::SynthOptions;
use autosync_oracle::ir::{Barrier, Block, Kernel, Label, Loop, StmtKind, VarId};
use autosync_oracle::tree::for_each_stmt;
use std::collections::BTreeSet;

/// The emission style for `k`: the setting, else CUTLASS when the kernel already uses it.
pub fn style_for(k: &Kernel, s: &NamedSettings) -> NamedStyle {
    if let Some(st) = s.style {
        return st;
    }
    if style::uses_cutlass(k) {
        NamedStyle::Cutlass
    } else {
        NamedStyle::Asm
    }
}

/// Constant IDs of the kernel's own named barriers (never reused by the tool).
pub fn used_ids(k: &Kernel) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            if let Some(v) = id.as_const() {
                out.insert(v as u32);
            }
        }
    });
    out
}

/// Whether some named barrier of the kernel has an ID that is not a constant.
pub fn has_computed_ids(k: &Kernel) -> bool {
    let mut found = false;
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            found |= id.as_const().is_none();
        }
    });
    found
}

/// The IDs new barriers may take: the allowed ones the kernel does not use itself.
pub(super) fn available_ids(k: &Kernel, opts: &SynthOptions) -> Vec<u32> {
    let used = used_ids(k);
    let mut avail: Vec<u32> = opts
        .named
        .allowed_ids
        .iter()
        .copied()
        .filter(|i| *i != 0 && *i <= 15 && !used.contains(i))
        .collect();
    if has_computed_ids(k) {
        // The kernel picks some IDs at run time (`FULL0 + slot`); such kernels conventionally
        // count up from low IDs, so take new ones from the top (the checker verifies anyway).
        avail.reverse();
    }
    avail
}

/// The constant thread count of the named barrier statement `l`.
pub(super) fn barrier_count(k: &Kernel, l: Label) -> Option<u32> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if s.label == l {
            if let StmtKind::Barrier(
                Barrier::NamedArrive { count, .. } | Barrier::NamedSync { count: Some(count), .. },
                _,
            ) = &s.kind
            {
                found = count.as_const().and_then(|c| u32::try_from(c).ok());
            }
        }
    });
    found
}

/// The body block and induction variable of loop statement `l`.
pub(super) fn loop_parts(k: &Kernel, l: Label) -> Option<(&Block, Option<VarId>)> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if s.label == l {
            if let StmtKind::Loop(Loop { body, var, .. }) = &s.kind {
                found = Some((body, *var));
            }
        }
    });
    found
}
