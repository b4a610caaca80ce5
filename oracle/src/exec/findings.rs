//! What the warp-scheduling executor observed: races with their two source locations,
//! deadlocks and the mbarrier defects an execution shows concretely.

use super::clock::AccessSite;
use crate::ir::{ArrayId, Label};
use std::collections::BTreeMap;

/// A racing statement pair on one array, labels in ascending order.
pub type RacePair = (Label, Label, ArrayId);

/// One race seen, with its two accesses (in execution order) and the threads or copies that
/// made them (a copy is named by the thread that issued it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpRace {
    /// The access made first.
    pub earlier: AccessSite,
    /// The access made second.
    pub later: AccessSite,
    /// Linear ids of the threads (or the issuers of the copies) behind the two accesses.
    pub threads: [u32; 2],
    /// Whether each access was made by an asynchronous copy.
    pub by_copy: [bool; 2],
    /// The byte offset both touched.
    pub byte: u64,
}

/// A synchronization defect an execution showed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WarpDefect {
    /// Every thread left is blocked: (warp, label it waits at), one per warp and label.
    Deadlock(Vec<(u32, Label)>),
    /// An mbarrier operation (at this label) not ordered after the barrier's initialization,
    /// or on a barrier never initialized or invalidated.
    Uninitialized(Label),
    /// More arrivals (the last at this label) in one phase than the phase expected.
    ArrivalOverflow(Label),
    /// An mbarrier (initialized at this label) left with a phase whose transaction count is
    /// not zero: the bytes expected and the bytes its copies completed differ.
    TxMismatch(Label),
    /// Threads of one named-barrier generation (the last at this label) gave different counts.
    CountMismatch(Label),
    /// Threads of one block-wide generation waited at different barrier statements.
    Divergent(Label),
    /// A named-barrier generation (started at this label) completed by `bar.arrive`s alone:
    /// nobody waited in it, so it ordered nothing.
    ArriveOnly(Label),
    /// A bulk copy read shared memory through the async proxy that a thread wrote (at this
    /// label) with no `fence.proxy.async` ordered before the copy after the write.
    MissingProxyFence(Label),
}

impl WarpDefect {
    /// The defect's name, for messages and statistics.
    pub fn name(&self) -> &'static str {
        match self {
            WarpDefect::Deadlock(_) => "deadlock",
            WarpDefect::Uninitialized(_) => "uninitialized",
            WarpDefect::ArrivalOverflow(_) => "arrival-overflow",
            WarpDefect::TxMismatch(_) => "tx-mismatch",
            WarpDefect::CountMismatch(_) => "count-mismatch",
            WarpDefect::Divergent(_) => "divergent",
            WarpDefect::ArriveOnly(_) => "arrive-only",
            WarpDefect::MissingProxyFence(_) => "missing-proxy-fence",
        }
    }
}

/// What the executions of a kernel under one or more schedules showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpReport {
    /// Every racing pair, with the first race seen for it.
    pub races: BTreeMap<RacePair, WarpRace>,
    /// Every defect, with the first schedule (by its index) that showed it.
    pub defects: BTreeMap<WarpDefect, usize>,
    /// Instructions executed, summed over threads and schedules.
    pub steps: u64,
}

impl WarpReport {
    /// No race and no defect.
    pub fn is_clean(&self) -> bool {
        self.races.is_empty() && self.defects.is_empty()
    }
    /// Adds the findings of `other` (seen under schedule `schedule`).
    pub fn merge(&mut self, other: WarpReport, schedule: usize) {
        for (pair, race) in other.races {
            self.races.entry(pair).or_insert(race);
        }
        for (d, _) in other.defects {
            self.defects.entry(d).or_insert(schedule);
        }
        self.steps += other.steps;
    }
}
