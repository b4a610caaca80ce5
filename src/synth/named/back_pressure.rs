//! Back-pressure: repairs a producer that reuses one of the kernel's own named barriers every
//! iteration before its consumers released it, by a channel on a new ID in the other
//! direction (the author's barriers stay as they are).

use super::costs::{base_cost, sync_factor};
use super::facts::{barrier_count, loop_parts, used_ids};
use super::placed::{apply, NamedPlaced};
use super::roles::WARP;
use super::settings::NamedKind;
use crate::synth::space::{SynthOptions, SynthStats};
use autosync_oracle::ir::{Barrier, Kernel, Label, StmtKind};
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::{Report, SyncDefectKind};
use autosync_oracle::tree::{for_each_stmt, LabelTree, Position};
use std::collections::{BTreeMap, BTreeSet};

/// Repairs a producer that reuses one of the kernel's own barriers every iteration without
/// back-pressure (reported as unsafe recycling, or as a deadlock of the schedule it allows) by
/// insertion: for each such ID X whose producer registration (it registers for generation k+1
/// before generation k completed) and consumer registration are in role loops, a back-pressure
/// channel on a new ID Y of the same thread count: `bar.arrive Y` at the end of the consumer's
/// iteration (after everything it does with the data) and `bar.sync Y` in the producer's
/// iteration after its registration on X, so the producer's next iteration starts only after
/// the consumer's iteration ended. The author's barriers stay as they are. Returns the
/// insertions when the named checker verifies the repaired kernel clean.
pub(super) fn back_pressure(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> Option<Vec<NamedPlaced>> {
    if !initial.divergences.is_empty() || !initial.inconclusive.is_empty() {
        return None;
    }
    // The registrations (statements) of every constant named-barrier ID.
    let mut on_id: BTreeMap<u32, Vec<Label>> = BTreeMap::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            if let Some(v) = id.as_const().and_then(|v| u32::try_from(v).ok()) {
                on_id.entry(v).or_default().push(s.label);
            }
        }
    });
    let id_of = |l: &Label| on_id.iter().find(|(_, ls)| ls.contains(l)).map(|(id, _)| *id);
    let mut recycled: BTreeSet<u32> = BTreeSet::new();
    for d in &initial.sync_defects {
        match &d.kind {
            SyncDefectKind::UnsafeRecycling { id } => {
                recycled.insert(*id);
            }
            SyncDefectKind::Deadlock { .. } => recycled.extend(d.labels.iter().filter_map(&id_of)),
            _ => return None,
        }
    }
    let tree = LabelTree::new(k);
    let used = used_ids(k);
    let mut free = opts
        .named
        .allowed_ids
        .iter()
        .copied()
        .filter(|i| *i != 0 && *i <= 15 && !used.contains(i));
    let total = k.launch.threads_per_block()?.div_ceil(WARP as u64) as u32;
    let end_of_iteration = |l: Label| -> Option<Position> {
        let (body, _) = loop_parts(k, *tree.get(l).loop_owners().last()?)?;
        let last = body.stmts.last()?;
        last.emit_after.then_some(Position::After(last.label))
    };
    // Per recycled ID: the (consumer arrive, producer sync) positions to try, for every
    // ordered pair of its registrations in different loops. The producer's sync goes right
    // after its registration, or at the end of its iteration.
    let mut plans = Vec::new();
    for id in &recycled {
        let regs = on_id.get(id)?;
        let innermost = |l: &Label| tree.get(*l).loop_owners().last().copied();
        let mut options = Vec::new();
        for completer in regs {
            for early in regs {
                if innermost(completer).is_none() || innermost(completer) == innermost(early) {
                    continue;
                }
                let Some(consumer) = end_of_iteration(*completer) else {
                    continue;
                };
                let mut producer = vec![Position::After(*early)];
                producer.extend(end_of_iteration(*early).filter(|p| *p != Position::After(*early)));
                options.extend(producer.into_iter().map(|p| (consumer, p)));
            }
        }
        if options.is_empty() {
            return None;
        }
        plans.push((free.next()?, barrier_count(k, regs[0])?, options));
    }
    let choices = plans.iter().map(|p| p.2.len()).max().unwrap_or(0);
    for choice in 0..choices {
        let mut placed = Vec::new();
        for (id, count, options) in &plans {
            let (consumer, producer) = options[choice.min(options.len() - 1)];
            let f = sync_factor(count.div_ceil(WARP), total, &opts.named);
            let at = |pos: Position, kind: NamedKind, factor: f64| NamedPlaced {
                pos,
                kind,
                cost: base_cost(&tree, pos, opts) * f * factor,
                covers: vec![],
                channel: true,
                guard: None,
                rotation: None,
            };
            let (id, count) = (*id, *count);
            placed.push(at(consumer, NamedKind::Arrive { id, count }, opts.named.arrive_factor));
            placed.push(at(producer, NamedKind::Sync { id, count }, 1.0));
        }
        placed.sort_by_key(|p| (tree.get(p.pos.label()).post, p.pos, p.kind.rank()));
        let candidate = apply(k, &placed)?;
        stats.oracle_calls += 1;
        if named::check(&candidate, nopts).is_clean() {
            return Some(placed);
        }
    }
    None
}
