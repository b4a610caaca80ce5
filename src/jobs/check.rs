//! `autosync check`: verification only. Chooses the checker per kernel (named-barrier checker
//! when the kernel uses named barriers, the SDV checker otherwise) and gives its verdict; the
//! reports are rendered by the outputs (`output::diag`, `output::results`, `output::sarif`).

use autosync_oracle::ir::Kernel;
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
    let (mut report, checker) = run_checker(k, oracle, timeout_ms, budget, strict);
    // A trap ends a thread's path in both checkers: a kernel that always traps would look clean.
    report.sync_defects.extend(autosync_oracle::traps::always_traps(k));
    (report, checker)
}

/// The checker `oracle` chooses, on its own.
fn run_checker(
    k: &Kernel,
    oracle: OracleChoice,
    timeout_ms: u32,
    budget: Option<std::time::Duration>,
    strict: bool,
) -> (Report, &'static str) {
    let use_named = match oracle {
        OracleChoice::Named => true,
        OracleChoice::Sdv => false,
        OracleChoice::Auto => tree::uses_named_barriers(k),
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
