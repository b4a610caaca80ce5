//! What a check does besides its report: measure itself (`Profile`), skip the queries proofs
//! settle, keep the proofs of its own unsatisfiable queries.

use super::query::QueryStat;
use super::reuse::Proofs;

/// Where a check spends its time: per phase, and per solver call.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// (phase, milliseconds): uniformity, decided branches, barrier intervals, conflict queries.
    pub phases: Vec<(&'static str, f64)>,
    /// Every solver call of the conflict queries.
    pub queries: Vec<QueryStat>,
}

/// What a check does besides its report: measure itself, skip the queries proofs settle, keep
/// the proofs of its own unsatisfiable queries.
#[derive(Default)]
pub(super) struct Extras<'p> {
    pub(super) profile: Option<Profile>,
    pub(super) reuse: Option<&'p Proofs<'p>>,
    pub(super) keep: bool,
    pub(super) kept: Option<Proofs<'p>>,
}

impl Extras<'_> {
    /// Ends a phase that started at `clock` (when profiling), and starts the next.
    pub(super) fn phase(&mut self, name: &'static str, clock: &mut std::time::Instant) {
        if let Some(p) = &mut self.profile {
            p.phases.push((name, clock.elapsed().as_secs_f64() * 1000.0));
        }
        *clock = std::time::Instant::now();
    }
}
