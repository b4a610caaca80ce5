//! Oracle 1: the SDV checker for block-wide barriers.
//!
//! Synchronous, delayed-visibility semantics: the threads of a block run in lock step with
//! predicated `if`s and loops, and a write becomes visible to other threads only at a barrier.
//! The check reports every racing pair of access statements per array (with the loop iteration
//! relations under which they race and a witness) and every block-wide barrier reached under a
//! non-uniform predicate. Kernels with named barriers belong to the named-barrier checker.
//!
//! Pipeline: [`uniformity`] → barrier intervals over a lock-step CFG (`intervals`) → one Z3
//! conflict query per (access pair, relation) on two symbolic threads (`symex`, `query`).
//! The CFG unrolls loops with small constant trip counts (their uniform branches fold per
//! iteration), and each barrier-free path hands the query the iterations it pins its ends to
//! (an exact unrolled iteration, the first iteration of a loop it enters, the last iteration of
//! a loop it leaves by the test): the query asks for a race under one of the paths' bounds.
//!
//! Assumptions (each excludes only executions that real launches do not have):
//! - CUDA's launch limits (blockDim ≤ 1024×1024×64 with ≤ 1024 threads, gridDim.y/z ≤ 65535),
//!   fewer than 2^31 threads per grid dimension, and a block or grid dimension the kernel never
//!   mentions (`threadIdx.y`, `blockIdx.z`, ...) has size 1 when the launch leaves it unknown;
//! - signed integer arithmetic does not overflow (undefined behaviour in C); unsigned arithmetic
//!   wraps around and that is modelled exactly;
//! - a loop's additive induction variable does not wrap around before the iteration in question.

mod counters;
mod decided;
mod divergence;
mod divisible;
mod extras;
mod feasibility;
mod fold;
mod grid_phases;
mod guess;
mod induction;
mod injective;
mod intervals;
mod jobs;
mod lanes;
mod levels;
mod mirror;
mod options;
mod pow2;
mod query;
mod race_set;
mod reuse;
mod symex;
mod syntax;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
mod threads;
mod uniform;

pub use extras::Profile;
pub use feasibility::{feasibility, feasibility_with, Feasibility};
pub use levels::{Level, Uniformity};
pub use options::{SdvOptions, SEARCH_NODES};
pub use query::QueryStat;
pub use reuse::Proofs;
pub use uniform::{uniformity, uniformity_if_reads_settle, uniformity_if_reads_settle_given};

use crate::ir::*;
use crate::report::*;
use crate::tree::{LabelTree, Position};
use divergence::{divergences, not_for_sdv};
use extras::Extras;
use intervals::Intervals;
use jobs::{access_sites, jobs, mark_own_reads, shapes};
use lanes::{answer, proved};
use race_set::RaceSet;

/// Checks `k` for intra-block races, inter-block races on global memory and barrier divergence.
pub fn check(k: &Kernel, opts: &SdvOptions) -> Report {
    crate::smt::fresh_context(|| check_in_context(k, opts, &mut Extras::default()))
}

/// [`check`], also keeping the conflict queries it proved unsatisfiable, for checks of `k` with
/// block-wide barriers added ([`check_with_barriers`]), and the uniformity it used
/// ([`Proofs::uniformity`]).
pub fn check_proving<'k>(k: &'k Kernel, opts: &SdvOptions) -> (Report, Proofs<'k>) {
    crate::smt::fresh_context(|| {
        let mut x = Extras {
            keep: true,
            ..Extras::default()
        };
        let r = check_in_context(k, opts, &mut x);
        let proofs = x
            .kept
            .unwrap_or_else(|| Proofs::new(k, reuse::WalkInputs::of(k, &uniformity(k))));
        (r, proofs)
    })
}

/// [`check`] of `proofs`' kernel with a block-wide barrier inserted at each of `positions`
/// (`Err`: a position not in the kernel). A conflict query that implies one the proofs hold
/// unsatisfiable is not asked (its answer cannot change: see `reuse.rs`); everything else,
/// divergence included, is checked as [`check`] does, so the report is the same.
pub fn check_with_barriers(proofs: &Proofs, positions: &[Position], opts: &SdvOptions) -> Result<Report, Position> {
    let inserts: Vec<(Position, Barrier)> = positions.iter().map(|p| (*p, Barrier::Block)).collect();
    let (k, _) = crate::tree::insert_barriers(proofs.kernel, &inserts)?;
    let mut x = Extras {
        reuse: Some(proofs),
        ..Extras::default()
    };
    Ok(crate::smt::fresh_context(|| check_in_context(&k, opts, &mut x)))
}

/// [`check`], also measuring where the time goes (for benchmarks; term counts cost time).
pub fn check_profiled(k: &Kernel, opts: &SdvOptions) -> (Report, Profile) {
    crate::smt::fresh_context(|| {
        let mut x = Extras {
            profile: Some(Profile::default()),
            ..Extras::default()
        };
        let r = check_in_context(k, opts, &mut x);
        (r, x.profile.unwrap_or_default())
    })
}

fn check_in_context<'k>(k: &'k Kernel, opts: &SdvOptions, x: &mut Extras<'k>) -> Report {
    let mut clock = std::time::Instant::now();
    let mut report = Report::default();
    if let Some(i) = not_for_sdv(k) {
        report.inconclusive.push(i);
        return report;
    }
    let unif = match (opts.assume_settled_reads, x.reuse) {
        (true, _) => uniformity_if_reads_settle(k),
        // The kernel checked with barriers added: the conditions' levels stand when its walks
        // read the same counters (the rest `uniformity_given` compares).
        (false, Some(p)) if p.counters() == &counters::counter_arrays(k) => {
            uniform::uniformity_given(k, p.uniformity())
        }
        (false, _) => uniformity(k),
    };
    x.phase("uniformity", &mut clock);
    let tree = LabelTree::new(k);
    report.divergences = divergences(k, &unif, &tree);

    let sites = access_sites(k, &tree);
    let mut labels: Vec<Label> = sites.iter().map(|s| s.label).collect();
    labels.dedup();
    let decided = decided::decide(k, &unif, decided::Scope::WithBarriers, opts.timeout_ms);
    x.phase("decided", &mut clock);
    let iv = Intervals::compute(k, &unif, &decided, &tree, &labels);
    x.phase("intervals", &mut clock);
    if iv.exhausted {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: format!(
                "the kernel's barrier-free paths branch too often to enumerate (over {} search states); no access pair was checked",
                intervals::STATE_BUDGET
            ),
        });
        return report;
    }

    let mut jobs = jobs(k, opts, &sites, &tree, &iv);
    let inputs = (x.reuse.is_some() || x.keep).then(|| reuse::WalkInputs::of(k, &unif));
    if let (Some(p), Some(inputs)) = (x.reuse, &inputs) {
        if p.applies(inputs) {
            jobs.retain(|j| !p.settles(&reuse::asked(&j.q, j.scope, j.rel)));
        }
    }
    mark_own_reads(k, &sites, &mut jobs);
    let mirrors = mirror::mirrors(&shapes(&jobs));
    let (answers, (queries, settled), cut) = answer(k, &unif, opts, (&jobs, &mirrors), &sites, x);
    if let Some(inputs) = inputs.filter(|_| x.keep) {
        x.kept = Some(proved(k, inputs, &jobs, &answers));
    }
    let mut races = RaceSet::default();
    for (n, (outcome, nature, rel)) in answers {
        let job = &jobs[n];
        races.record(
            &sites[job.sites.0],
            &sites[job.sites.1],
            job.scope,
            rel,
            outcome,
            nature,
        );
    }
    x.phase("queries", &mut clock);
    let (harmful, benign, overlap) = races.finish(opts.strict);
    report.races = harmful;
    report.benign = benign;
    report.overlap = overlap;
    report.queries = queries;
    report.settled_by_divisibility = settled.divisible;
    report.settled_by_injectivity = settled.injective;
    report.out_of_time = cut.expired || cut.wall_limited;
    if cut.expired {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: format!(
                "the kernel's time budget ran out after {queries} solver queries; not every access pair was checked"
            ),
        });
    }
    report
}
