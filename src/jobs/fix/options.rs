//! The options of `fix`, and the suppressions a lowered file gets under them.

use crate::front;
use crate::synth::space::SynthOptions;
use crate::vocab::filter::{Filter, FilterFor, NoFilter};
use serde::Serialize;
use std::sync::Arc;

/// Which synthesis strategy to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Strategy {
    /// Weighted MaxSAT over the label tree, refined by the oracle.
    Maxsat,
    /// The AutoSync paper's baseline: barriers everywhere, then remove one at a time.
    Naive,
}

/// Options of `fix`.
#[derive(Clone, Debug)]
pub struct FixOptions {
    /// Synthesis options.
    pub synth: SynthOptions,
    /// Strategy.
    pub strategy: Strategy,
    /// Add a trailing comment naming the races each barrier removes.
    pub annotate: bool,
    /// Also propose removing the author's barriers when a verified cheaper placement exists.
    pub minimize: bool,
    /// The file's suppressions, built from its texts (none when unset).
    pub suppress: Option<FilterFor>,
}

/// `autosync fix` with no flags (see `workflow::fix_options`), except that there is no
/// wall-clock kernel budget (the CLI's `--kernel-timeout 60`): `SynthOptions::default()` leaves
/// it unset so library callers and tests get results that do not depend on machine load.
impl Default for FixOptions {
    fn default() -> Self {
        FixOptions {
            synth: SynthOptions::default(),
            strategy: Strategy::Maxsat,
            annotate: false,
            minimize: false,
            suppress: None,
        }
    }
}

/// The suppressions of a lowered file under `opts`.
pub fn suppressions(unit: &front::SourceUnit, opts: &FixOptions) -> Arc<dyn Filter> {
    match &opts.suppress {
        Some(f) => f.of(&unit.texts),
        None => Arc::new(NoFilter),
    }
}
