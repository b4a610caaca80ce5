//! Oracle 2: the named-barrier checker for warp-specialized kernels (WEFT-style).
//!
//! 1. [`skeleton`]: emulate the synchronization skeleton per warp (concrete thread ids and
//!    launch parameters) into barrier events and the accesses of the segments between them.
//! 2. [`sim`]: simulate one schedule to form barrier generations; [`wellsync`]: check that they
//!    hold in every schedule (deadlock, counts, participants, arrive-only, recycling).
//! 3. [`hb`]: vector clocks of the segments over the barrier dependence graph.
//! 4. [`races`] / [`symbolic`]: conflicting accesses of concurrent segments (hash buckets
//!    for concrete addresses, Z3 for symbolic ones).

mod distance;
mod hb;
mod races;
mod sim;
mod skeleton;
mod symbolic;
mod value;
mod wellsync;

#[cfg(test)]
mod tests;

use crate::ir::Kernel;
use crate::report::{Inconclusive, Report};
use skeleton::Stop;

/// Options of the named-barrier checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedOptions {
    /// `--warp-sync`: lanes of a warp run in lock step (no intra-warp races).
    pub warp_sync: bool,
    /// Per-query solver timeout in milliseconds (unknown counts as a race).
    pub timeout_ms: u32,
}

impl Default for NamedOptions {
    fn default() -> Self {
        NamedOptions {
            warp_sync: false,
            timeout_ms: 10_000,
        }
    }
}

/// Checks a kernel under PTX named-barrier semantics for one thread block.
pub fn check(k: &Kernel, opts: &NamedOptions) -> Report {
    crate::smt::fresh_context(|| check_in_context(k, opts))
}

fn check_in_context(k: &Kernel, opts: &NamedOptions) -> Report {
    let mut report = Report::default();
    let Some(block_dim) = k.launch.block_dim.filter(|d| d.iter().all(|&x| x > 0)) else {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: "the named-barrier check needs a concrete blockDim (use --blockDim)".into(),
        });
        return report;
    };
    if block_dim.iter().map(|&x| x as u64).product::<u64>() > 1024 {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: format!("blockDim {block_dim:?} has more than 1024 threads"),
        });
        return report;
    }
    let sk = skeleton::emulate(k, block_dim);
    report.sync_defects.extend(sk.defects.iter().cloned());
    for stop in &sk.stops {
        match stop {
            Stop::Diverged(d) => {
                if !report
                    .divergences
                    .iter()
                    .any(|x| x.barrier == d.barrier && x.cond_stmt == d.cond_stmt)
                {
                    report.divergences.push(d.clone());
                }
            }
            Stop::Inconclusive(i) => {
                if !report.inconclusive.contains(i) {
                    report.inconclusive.push(i.clone());
                }
            }
        }
    }
    if !report.is_clean() {
        // A truncated skeleton would produce spurious synchronization defects.
        return report;
    }
    let warps = &sk.warps;
    let sim = sim::simulate(k, warps);
    if let Some(e) = sim.error.clone() {
        report.sync_defects.push(e);
        return report;
    }
    let Ok(hb) = hb::compute(warps, &sim) else {
        report.inconclusive.push(Inconclusive {
            span: k.span,
            message: "internal: the barrier dependence graph of the simulated schedule has a cycle".into(),
        });
        return report;
    };
    if !sim.blocked.is_empty() {
        report.sync_defects.extend(wellsync::stuck(k, warps, &sim, &hb));
        return report;
    }
    let defects = wellsync::check(k, warps, &sim, &hb);
    let well_synchronized = defects
        .iter()
        .all(|d| matches!(d.kind, crate::report::SyncDefectKind::ArriveOnly));
    report.sync_defects.extend(defects);
    if !well_synchronized {
        // Happens-before is only meaningful when generations are the same in every schedule.
        return report;
    }
    let buckets = races::bucket(k, warps);
    let mut cx = races::RaceCtx::new(k, warps, &sim);
    races::check_concrete(&mut cx, &hb, &buckets, opts.warp_sync);
    report.queries += symbolic::check_symbolic(&mut cx, &hb, &buckets, opts.warp_sync, opts.timeout_ms);
    report.races = cx.races;
    report
}
