//! Re-verification of the patched text: lowered again from text and checked as `check` would.

use super::file::FixError;
use super::options::{suppressions, FixOptions};
use crate::front::{self, FrontOptions};
use crate::jobs::check::{check_kernel_within, OracleChoice};
use crate::synth::block;
use std::path::Path;

/// Lowers the patched text again and checks it as `check` would: emission must have put every
/// barrier where the IR said, and the result must be race-free. An error names the index of the
/// kernel that failed, if one did.
pub(super) fn verify_patched(
    path: &Path,
    patched: &str,
    front_opts: &FrontOptions,
    opts: &FixOptions,
    partial: &[usize],
) -> Result<(), (Option<usize>, FixError)> {
    let unit = front::lower_text(path, patched, front_opts).map_err(|e| {
        (
            None,
            FixError::Verification(format!("the patched file does not lower: {}", e.message)),
        )
    })?;
    // The suppressions as the patched text has them (its lines moved).
    let sup = suppressions(&unit, opts);
    for (ki, k) in unit.kernels.iter().enumerate() {
        let fail = |e: FixError| (Some(ki), e);
        let (r, _) = check_kernel_within(k, OracleChoice::Auto, opts.synth.timeout_ms, None, opts.synth.strict);
        let r = sup.keep(k, r);
        if !r.is_clean() && r.divergences.is_empty() && r.sync_defects.is_empty() && r.races.iter().all(|x| x.assumed) {
            return Err(fail(FixError::Verification(format!(
                "kernel `{}`: the patched text could not be re-verified within the solver budget (raise --timeout)",
                k.name
            ))));
        }
        let only_unfixable = partial.contains(&ki)
            && r.divergences.is_empty()
            && r.sync_defects.is_empty()
            && r.inconclusive.is_empty()
            && r.races.iter().all(|x| !x.assumed)
            && block::all_unfixable(k, &r.races, &opts.synth);
        if !r.is_clean() && !only_unfixable {
            return Err(fail(FixError::Verification(format!(
                "kernel `{}`: the patched text does not verify ({} races)",
                k.name,
                r.races.len()
            ))));
        }
    }
    Ok(())
}
