//! Races with asynchronous copies: which statements issue copies, and an unfixable outcome
//! said in terms of the copies that no barrier can order.

use super::outcome::{NamedOutcome, NamedUnfixable, NOT_CONVERGED};
use autosync_oracle::ir::{Kernel, Label, Op, StmtKind};
use autosync_oracle::report::Race;
use autosync_oracle::tree::for_each_stmt;
use std::collections::BTreeSet;

/// An unfixable outcome whose races include asynchronous copies, said in their terms.
///
/// A copy's race is placed for like any other, at the statement that issues the copy: a barrier
/// between an access and a *later* copy's issue orders them, since the copy reads and writes
/// only after it is issued (the reads of the previous tile before the next tile's copy). When
/// the copy is the earlier of the two, its data may land after any barrier: no placement
/// verifies, and the reason is the copy (it needs a `cp.async.wait_group` or an mbarrier wait).
pub(super) fn blame_copies(k: &Kernel, races: &[Race], outcome: NamedOutcome) -> NamedOutcome {
    let copies = async_copy_labels(k);
    let touches = |r: &Race| touches_copy(&copies, r);
    let copy_races: Vec<NamedUnfixable> = races
        .iter()
        .filter(|r| touches(r))
        .map(|r| NamedUnfixable::AsyncCopy(Box::new(r.clone())))
        .collect();
    if copy_races.is_empty() {
        return outcome;
    }
    let why = match outcome {
        NamedOutcome::Unfixable(why) => why,
        // The rounds for a copy that lands first only ever move barriers around.
        NamedOutcome::Inconclusive(m) if m == NOT_CONVERGED => return NamedOutcome::Unfixable(copy_races),
        other => return other,
    };
    let mut out = Vec::new();
    for w in why {
        match w {
            NamedUnfixable::NoOption(r, _) | NamedUnfixable::SameStatement(r) if touches(&r) => {
                out.push(NamedUnfixable::AsyncCopy(r))
            }
            NamedUnfixable::NoPlacement => out.extend(copy_races.iter().cloned()),
            other => out.push(other),
        }
    }
    NamedOutcome::Unfixable(out)
}

/// Rounds a placement may take when some race involves an asynchronous copy: a copy whose data
/// may land after any barrier keeps the refinement moving barriers around until it runs out.
pub(super) const COPY_ROUNDS: u32 = 8;

/// Whether one of the race's accesses is at a statement that issues an asynchronous copy.
pub(super) fn touches_copy(copies: &BTreeSet<Label>, r: &Race) -> bool {
    copies.contains(&r.first.label) || copies.contains(&r.second.label)
}

/// The statements that issue an asynchronous copy or a wgmma (whose accesses happen later, up
/// to its completion).
pub(super) fn async_copy_labels(k: &Kernel) -> BTreeSet<Label> {
    let mut out = BTreeSet::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Basic(ops) = &s.kind {
            if ops.iter().any(|o| matches!(o, Op::AsyncCopy(_) | Op::Wgmma(_))) {
                out.insert(s.label);
            }
        }
    });
    out
}
