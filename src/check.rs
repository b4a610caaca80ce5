//! `autosync check`: verification only. Chooses the checker per kernel (named-barrier checker
//! when the kernel uses named barriers, the SDV checker otherwise) and gives its verdict; the
//! reports are rendered by `diag.rs` (text), `results.rs` (JSON) and `sarif.rs`.

use autosync_oracle::ir::{Kernel, StmtKind};
use autosync_oracle::report::Report;
use autosync_oracle::{named, sdv, tree};
use serde::Serialize;

/// Which checker to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OracleChoice {
    /// Named barriers if the kernel uses any, SDV otherwise.
    Auto,
    /// The SDV checker (block-wide barriers).
    Sdv,
    /// The named-barrier checker.
    Named,
}

/// Whether a kernel uses named barriers (anything but block-wide barrier 0).
pub fn uses_named_barriers(k: &Kernel) -> bool {
    let mut found = false;
    tree::for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            found |= b.is_named();
        }
    });
    found
}

/// Runs the chosen checker on one kernel (benign races are warnings).
pub fn check_kernel(k: &Kernel, oracle: OracleChoice, timeout_ms: u32) -> (Report, &'static str) {
    check_kernel_within(k, oracle, timeout_ms, None, false)
}

/// Runs the chosen checker on one kernel within a wall-clock `budget` (SDV checker only; the
/// named-barrier checker is bounded per query): past it the report is inconclusive. With
/// `strict`, benign races are reported as races.
pub fn check_kernel_within(
    k: &Kernel,
    oracle: OracleChoice,
    timeout_ms: u32,
    budget: Option<std::time::Duration>,
    strict: bool,
) -> (Report, &'static str) {
    let use_named = match oracle {
        OracleChoice::Named => true,
        OracleChoice::Sdv => false,
        OracleChoice::Auto => uses_named_barriers(k),
    };
    if use_named {
        let opts = named::NamedOptions {
            warp_sync: k.launch.warp_sync.is_some(),
            timeout_ms,
        };
        (named::check(k, &opts), "named")
    } else {
        let opts = sdv::SdvOptions {
            timeout_ms,
            deadline: budget.map(|b| std::time::Instant::now() + b),
            strict,
            ..Default::default()
        };
        (sdv::check(k, &opts), "sdv")
    }
}

/// Overall verdict of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No defect.
    Clean,
    /// Defects found.
    Defects,
    /// Could not conclude.
    Inconclusive,
}

/// The verdict of a report: proven defects win; races the solver only assumed, or explicit
/// inconclusive reasons, make the check inconclusive, never clean.
pub fn verdict(r: &Report) -> Verdict {
    let proven = r.races.iter().any(|x| !x.assumed) || !r.divergences.is_empty() || !r.sync_defects.is_empty();
    if proven {
        Verdict::Defects
    } else if !r.races.is_empty() || !r.inconclusive.is_empty() {
        Verdict::Inconclusive
    } else {
        Verdict::Clean
    }
}
