//! Oracle 2: the named-barrier checker for warp-specialized kernels (WEFT-style).
//!
//! 1. [`skeleton`]: emulate the synchronization skeleton per warp (concrete thread ids and
//!    launch parameters) into barrier and async-pipeline events (mbarrier operations, copy
//!    issues, group waits; with the lanes that ran them) and the accesses of the segments
//!    between them; [`units`]: split warps into lane groups with equal events, one unit per
//!    set of asynchronous copies.
//! 2. [`sim`]: simulate one schedule to form barrier generations and mbarrier phases;
//!    [`wellsync`] and [`phases`]: check that they hold in every schedule (deadlock, counts,
//!    participants, arrive-only, recycling; phase order, parity, transaction bytes).
//! 3. [`hb`]: vector clocks of the segments over the generations.
//! 4. [`races`] / [`symbolic`]: conflicting accesses of concurrent segments (hash buckets
//!    for concrete addresses, Z3 for symbolic ones), copies included; [`proxy`]: generic
//!    writes that async-proxy copies read without a `fence.proxy.async` between.

mod distance;
mod eval;
mod hb;
mod phases;
mod pipeline;
mod proxy;
mod races;
mod sim;
mod skeleton;
mod symbolic;
mod units;
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
    if let Some(span) = nested_grid_sync(k) {
        // Whether every block reaches it as often is a question about blocks this checker,
        // which emulates one block, does not ask.
        report.inconclusive.push(Inconclusive {
            span,
            message:
                "the named-barrier checker does not model a grid-wide barrier (grid.sync()) inside a branch or loop"
                    .into(),
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
    let units = units::split(sk.warps, sk.agents);
    let sim = sim::simulate(k, &units, &sk.mbars, &sk.tokens);
    if let Some((span, message)) = sim.unsupported.clone() {
        report.inconclusive.push(Inconclusive { span, message });
        return report;
    }
    if let Some(e) = sim.error.clone() {
        report.sync_defects.push(e);
        return report;
    }
    let hb = hb::compute(&units.traces, &sim);
    let pcx = phases::PhaseCx {
        k,
        units: &units,
        mbars: &sk.mbars,
        sim: &sim,
        hb: &hb,
    };
    let pipelined = !sk.mbars.keys.is_empty() || !units.agent_unit.is_empty();
    if !sim.blocked.is_empty() {
        report
            .sync_defects
            .extend(wellsync::stuck(k, &units, &sk.mbars, &sim, &hb));
        // Why a pipeline got stuck: a phase whose bytes never arrive, a wrong parity, an
        // arrival out of phase.
        let mut why = phases::check(&pcx);
        for b in 0..sk.mbars.keys.len() as u32 {
            why.extend(phases::tx_mismatch(&pcx, b, i64::MAX));
        }
        for d in why {
            if !report
                .sync_defects
                .iter()
                .any(|x| x.kind == d.kind && x.labels == d.labels)
            {
                report.sync_defects.push(d);
            }
        }
        if pipelined {
            // Races of the execution that got stuck are real: its happens-before is exact.
            let ran = units::reached(&units, |u| hb.segments(u));
            races_of(k, &ran, &sim, &hb, opts, &sk.facts, &mut report);
        }
        return report;
    }
    let mut defects = wellsync::check(k, &units, &sim, &hb);
    defects.extend(phases::check(&pcx));
    let well_synchronized = defects
        .iter()
        .all(|d| matches!(d.kind, crate::report::SyncDefectKind::ArriveOnly));
    report.sync_defects.extend(defects);
    if !well_synchronized {
        // Happens-before is only meaningful when generations are the same in every schedule.
        return report;
    }
    let buckets = races_of(k, &units, &sim, &hb, opts, &sk.facts, &mut report);
    let pxc = proxy::ProxyCx {
        k,
        units: &units,
        hb: &hb,
    };
    report.sync_defects.extend(proxy::missing_fences(&pxc, &buckets));
    if report.is_clean() {
        if let Some(i) = proxy::undecided(&pxc) {
            report.inconclusive.push(i);
        }
        // Clean only if the async proxy's view of the mbarriers does not decide it, nor which
        // TMA load takes which announced bytes.
        if let Some((span, message)) = phases::proxy_fences(&pcx).or_else(|| phases::boxed_copies(&pcx)) {
            report.inconclusive.push(Inconclusive { span, message });
        }
    }
    report
}

/// The races between concurrent segments of the schedule; the buckets of concrete accesses.
fn races_of(
    k: &Kernel,
    units: &units::Units,
    sim: &sim::Sim,
    hb: &hb::Hb,
    opts: &NamedOptions,
    facts: &[std::rc::Rc<value::Sym>],
    report: &mut Report,
) -> races::Buckets {
    let buckets = races::bucket(k, &units.traces);
    let mut cx = races::RaceCtx::new(k, units, sim);
    races::check_concrete(&mut cx, hb, &buckets, opts.warp_sync);
    report.queries += symbolic::check_symbolic(&mut cx, hb, &buckets, facts, opts.warp_sync, opts.timeout_ms);
    report.races = cx.races;
    buckets
}

/// The first grid barrier that is not one of the kernel's top-level statements.
fn nested_grid_sync(k: &Kernel) -> Option<crate::ir::Span> {
    use crate::ir::{BarrierSyntax, Stmt, StmtKind};
    let is_grid = |s: &Stmt| matches!(s.kind, StmtKind::Barrier(_, BarrierSyntax::GridSync));
    let mut found = None;
    for s in k.body.stmts.iter().filter(|s| !is_grid(s)) {
        crate::tree::visit_stmt(s, &mut |t| {
            if found.is_none() && is_grid(t) {
                found = Some(t.span);
            }
        });
    }
    found
}
