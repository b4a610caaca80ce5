//! The mbarrier protocol of a pipeline kernel, read from the IR: which role loop arrives on and
//! waits on each mbarrier array, and the gaps where one side of the protocol is missing.
//!
//! A ring pipeline pairs every mbarrier with arrivals in one role and waits in another: the
//! producer fills a stage (arrive.expect_tx and a copy completing on "full") and the consumer
//! waits on "full"; the consumer releases the stage (an arrive on "empty") and the producer waits
//! on "empty" before refilling it. An array that is arrived on but never waited on, or waited on
//! but never arrived on, is a gap: the missing wait or arrive goes into one of the other role
//! loops. Which position, parity and loop is left to the checker.

use autosync_oracle::ir::{ArrayId, AsyncCompletion, Kernel, Label, MbarOp, Op, StmtKind};
use autosync_oracle::tree::{for_each_stmt, LabelTree};
use std::collections::BTreeSet;

/// What one statement does with an mbarrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// `mbarrier.init`.
    Init,
    /// An arrival; `fills`: it announces or completes transaction bytes (a stage being filled).
    Arrival {
        /// Transaction bytes: an `arrive.expect_tx`, a copy completing on it, `complete_tx`.
        fills: bool,
    },
    /// A wait (a PTX retry loop, or a spin loop's test).
    Wait,
}

/// One use of an mbarrier array.
#[derive(Clone, Debug)]
pub struct MbarUse {
    /// The array the mbarrier lives in (every element of it is one stage's barrier).
    pub array: ArrayId,
    /// What the statement does.
    pub what: Use,
    /// The statement.
    pub stmt: Label,
    /// The innermost loop the statement repeats in (a spin loop around a test is not one).
    pub role_loop: Option<Label>,
}

/// Which half of the protocol is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GapKind {
    /// Waited on, never arrived on.
    Arrive,
    /// Arrived on, never waited on.
    Wait,
}

/// A missing arrive or wait on one mbarrier array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The array.
    pub array: ArrayId,
    /// What is missing.
    pub kind: GapKind,
    /// The role loops it may go into (those with mbarrier uses other than the array's own side).
    pub loops: Vec<Label>,
    /// The array's arrivals fill a stage (its waits wait for data, not for a free stage).
    pub fills: bool,
}

/// Every use of an mbarrier array in `k`, in pre-order.
pub fn uses(k: &Kernel, tree: &LabelTree) -> Vec<MbarUse> {
    let mut out = Vec::new();
    for_each_stmt(&k.body, &mut |s| {
        let StmtKind::Basic(ops) = &s.kind else { return };
        for op in ops {
            if let Some((array, what)) = classify(op) {
                out.push(MbarUse {
                    array,
                    what,
                    stmt: s.label,
                    role_loop: role_loop(tree, s.label, what),
                });
            }
        }
    });
    out
}

/// The array an op uses and how.
fn classify(op: &Op) -> Option<(ArrayId, Use)> {
    match op {
        Op::Mbarrier(b, m) => {
            let what = match m {
                MbarOp::Init { .. } => Use::Init,
                MbarOp::Arrive { tx, .. } => Use::Arrival { fills: tx.is_some() },
                MbarOp::CompleteTx { .. } => Use::Arrival { fills: true },
                MbarOp::ArriveOnCopies { .. } => Use::Arrival { fills: false },
                MbarOp::Test { .. } | MbarOp::Wait { .. } => Use::Wait,
                MbarOp::ExpectTx { .. } | MbarOp::Inval => return None,
            };
            Some((b.array, what))
        }
        Op::AsyncCopy(c) => match &c.completion {
            AsyncCompletion::Mbarrier(b) => Some((b.array, Use::Arrival { fills: true })),
            AsyncCompletion::Group | AsyncCompletion::BulkGroup => None,
        },
        _ => None,
    }
}

/// The innermost loop around `l`; a test in a loop's own condition spins in that loop, so
/// the loop around the spin loop is the role loop.
fn role_loop(tree: &LabelTree, l: Label, what: Use) -> Option<Label> {
    let info = tree.get(l);
    let mut owners = info.loop_owners();
    if what == Use::Wait && info.in_loop_control {
        owners.pop();
    }
    owners.last().copied()
}

/// The gaps of the protocol: per mbarrier array with an `init`, a missing arrive or wait side.
pub fn gaps(uses: &[MbarUse]) -> Vec<Gap> {
    let arrays: BTreeSet<ArrayId> = uses.iter().filter(|u| u.what == Use::Init).map(|u| u.array).collect();
    let role_loops: BTreeSet<Label> = uses
        .iter()
        .filter(|u| u.what != Use::Init)
        .filter_map(|u| u.role_loop)
        .collect();
    let mut out = Vec::new();
    for a in arrays {
        let on = |pred: &dyn Fn(Use) -> bool| -> Vec<&MbarUse> {
            uses.iter().filter(|u| u.array == a && pred(u.what)).collect()
        };
        let arrivals = on(&|w| matches!(w, Use::Arrival { .. }));
        let waits = on(&|w| w == Use::Wait);
        let fills = arrivals.iter().any(|u| u.what == Use::Arrival { fills: true });
        let (kind, side) = match (arrivals.is_empty(), waits.is_empty()) {
            (true, false) => (GapKind::Arrive, waits),
            (false, true) => (GapKind::Wait, arrivals),
            _ => continue,
        };
        let own: BTreeSet<Label> = side.iter().filter_map(|u| u.role_loop).collect();
        let loops: Vec<Label> = role_loops.difference(&own).copied().collect();
        if !loops.is_empty() {
            out.push(Gap {
                array: a,
                kind,
                loops,
                fills,
            });
        }
    }
    out
}
