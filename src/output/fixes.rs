//! The results of `fix` per kernel as the outputs read them (and JSON serializes them): status,
//! inserted barriers with what they order, costs, statistics.

use autosync_oracle::report::Report;
use serde::Serialize;

/// What happened to one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelFix {
    /// Kernel name.
    pub kernel: String,
    /// fixed | clean | unfixable | inconclusive.
    pub status: &'static str,
    /// Inserted barriers.
    pub barriers: Vec<BarrierJson>,
    /// Total cost of inserted barriers.
    pub cost: f64,
    /// Unfixable reasons / inconclusive message.
    pub reasons: Vec<String>,
    /// Oracle calls, MaxSAT calls, rounds, milliseconds.
    pub stats: StatsJson,
    /// Races in the input (`first line ↔ second line`).
    pub races: Vec<String>,
    /// Lines of the author's barriers removed by `--minimize`, with the cost before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimized: Option<MinimizedJson>,
    /// Notes about how the fix was written (e.g. a requested style that could not be followed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The checker's report on the input, when synthesis ran one (machine outputs locate the
    /// defects from it instead of checking the kernel again); suppressed findings removed.
    #[serde(skip)]
    pub initial: Option<Report>,
    /// The suppressed findings of that report.
    #[serde(skip)]
    pub suppressed: Report,
}

/// What `--minimize` changed in a kernel.
#[derive(Clone, Debug, Serialize)]
pub struct MinimizedJson {
    /// Lines (in the original file) of the removed barriers.
    pub removed_lines: Vec<u32>,
    /// Cost of the author's barriers plus plain synthesis.
    pub old_cost: f64,
    /// Cost after minimization.
    pub new_cost: f64,
}

/// An inserted barrier, for reports.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BarrierJson {
    /// 1-based line in the patched file.
    pub line: u32,
    /// 1-based line of the original file it is inserted before.
    pub original_line: u32,
    /// The inserted statement.
    pub text: String,
    /// Cost under the cost model.
    pub cost: f64,
    /// Races only this barrier orders (removing it brings them back), as `a↔b` line pairs.
    pub covers: Vec<String>,
    /// Races it orders only together with other inserted barriers of the kernel.
    pub shares: Vec<String>,
    /// Indexes into the initial report's races of every race it orders.
    #[serde(skip)]
    pub covers_races: Vec<usize>,
    /// Named barriers: IDs, count and whether it is an arrive.
    #[serde(skip)]
    pub named: Option<NamedInfo>,
    /// Byte offset in the original text where it goes (text order of the barriers).
    #[serde(skip)]
    pub at: u32,
}

/// What a named barrier is, for reports (the text output and JSON agree on it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedInfo {
    /// IDs it uses (several when the ID cycles with a loop counter).
    pub ids: Vec<u32>,
    /// Participating threads.
    pub count: u32,
    /// `bar.arrive` rather than `bar.sync`.
    pub arrive: bool,
}

/// Counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StatsJson {
    /// Oracle calls.
    pub oracle_calls: u32,
    /// MaxSAT solves.
    pub maxsat_calls: u32,
    /// Refinement rounds.
    pub rounds: u32,
    /// Wall time in milliseconds.
    pub millis: f64,
}
