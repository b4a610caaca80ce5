//! Files in parallel: a rayon pool of the requested size and a progress bar on terminals,
//! results in input order whatever the scheduling.

use super::inputs::Input;
use super::options::RunOptions;
use crate::output::results::FileResult;
use rayon::prelude::*;
use std::io::IsTerminal;

/// Runs `work` over the inputs on a rayon pool with a progress bar; results in input order.
pub(super) fn process<F>(inputs: &[Input], run: &RunOptions, work: F) -> Vec<FileResult>
where
    F: Fn(&Input) -> FileResult + Sync,
{
    let bar = if inputs.len() > 1 && !run.quiet && std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        let style = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        pb.set_style(style);
        Some(pb)
    } else {
        None
    };
    let job = || {
        inputs
            .par_iter()
            .map(|i| {
                if let Some(b) = &bar {
                    b.set_message(i.name());
                }
                let r = work(i);
                if let Some(b) = &bar {
                    b.inc(1);
                }
                r
            })
            .collect::<Vec<_>>()
    };
    let results = match rayon::ThreadPoolBuilder::new().num_threads(run.jobs).build() {
        Ok(pool) => pool.install(job),
        Err(_) => job(),
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    results
}
