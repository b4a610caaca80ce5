//! What named synthesis answers: a verified placement, why none exists, or why it could not
//! decide, with the input's report and counters.

use super::needs::NoOption;
use super::placed::NamedPlaced;
use super::settings::NamedStyle;
use crate::synth::space::SynthStats;
use autosync_oracle::ir::Kernel;
use autosync_oracle::report::{Race, Report};

/// Why named synthesis cannot fix a kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum NamedUnfixable {
    /// The input has a synchronization defect (deadlock, count mismatch, divergent barrier...).
    SyncDefect(String),
    /// One statement races with itself within one iteration.
    SameStatement(Box<Race>),
    /// A race with no option.
    NoOption(Box<Race>, NoOption),
    /// More barriers than free IDs.
    NotEnoughIds {
        /// IDs the placement needs.
        needed: usize,
        /// IDs available.
        available: usize,
    },
    /// The requirements have no solution.
    NoPlacement,
    /// A race with an asynchronous copy: a barrier orders threads, not a copy in flight (that
    /// takes a `cp.async.wait_group` or an mbarrier wait, which synthesis does not write yet).
    AsyncCopy(Box<Race>),
}

impl NamedUnfixable {
    /// Short machine-readable reason.
    pub fn reason(&self) -> &'static str {
        match self {
            NamedUnfixable::SyncDefect(_) => "sync-error",
            NamedUnfixable::SameStatement(_) => "same-statement",
            NamedUnfixable::NoOption(_, NoOption::LaneDivergent) => "lane-divergent",
            NamedUnfixable::NoOption(_, NoOption::RoleLoops) => "role-loop-mismatch",
            NamedUnfixable::NoOption(_, NoOption::UnknownTrips) => "unknown-trip-count",
            NamedUnfixable::NoOption(_, NoOption::NoMatchedPair) => "no-matched-pair",
            NamedUnfixable::NotEnoughIds { .. } => "not-enough-ids",
            NamedUnfixable::NoPlacement => "no-placement",
            NamedUnfixable::AsyncCopy(_) => "async-copy",
        }
    }

    /// A human sentence.
    pub fn describe(&self, k: &Kernel) -> String {
        let at = |r: &Race| format!("{} and {}", k.loc(r.first.span), k.loc(r.second.span));
        match self {
            NamedUnfixable::SyncDefect(s) => format!("the kernel's own barriers are defective: {s}"),
            NamedUnfixable::SameStatement(r) => format!(
                "{}: one statement races on `{}` with itself; no barrier can go inside a statement",
                k.loc(r.first.span),
                k.array(r.array).name
            ),
            NamedUnfixable::NoOption(r, NoOption::LaneDivergent) => format!(
                "{}: every position between these accesses is lane-divergent or not executed by both racing warps",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::RoleLoops) => format!(
                "{}: the accesses are in role loops with different trip counts; no barrier generations can match",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::UnknownTrips) => format!(
                "{}: the role loops' trip counts are not known for this launch; give the loop bounds with --param",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::NoMatchedPair) => format!(
                "{}: no pair of positions in the two roles executes equally often in the lock-step order",
                at(r)
            ),
            NamedUnfixable::NotEnoughIds { needed, available } => format!(
                "the placement needs {needed} barrier IDs in flight but only {available} are free (see --reserved-ids)"
            ),
            NamedUnfixable::NoPlacement => "no named-barrier placement orders every race".into(),
            NamedUnfixable::AsyncCopy(r) => format!(
                "{}: an asynchronous copy or wgmma races on `{}`; no barrier orders one in flight: it needs a cp.async.wait_group, wgmma.wait_group or an mbarrier wait first",
                at(r),
                k.array(r.array).name
            ),
        }
    }
}

/// The result of named synthesis.
#[derive(Clone, Debug)]
pub enum NamedOutcome {
    /// No race to begin with.
    AlreadyClean,
    /// A verified placement.
    Fixed {
        /// Statements to insert, in text order (at one position: arrives, then syncs).
        barriers: Vec<NamedPlaced>,
        /// Total cost.
        cost: f64,
    },
    /// Barriers cannot fix it.
    Unfixable(Vec<NamedUnfixable>),
    /// The oracle or solver could not decide.
    Inconclusive(String),
}

/// Named synthesis result with the initial report and counters.
#[derive(Clone, Debug)]
pub struct NamedSynthesis {
    /// The named checker's report on the input (suppressed findings removed).
    pub initial: Report,
    /// The suppressed findings of the input.
    pub suppressed: Report,
    /// What to do.
    pub outcome: NamedOutcome,
    /// Counters.
    pub stats: SynthStats,
    /// Emission style for the kernel.
    pub style: NamedStyle,
}

/// The inconclusive outcome of a refinement that ran out of rounds.
pub(super) const NOT_CONVERGED: &str = "named-barrier refinement did not converge";
