//! Files in parallel: a rayon pool of the requested size and a progress bar on terminals,
//! results in input order whatever the scheduling.

use super::inputs::Input;
use super::options::RunOptions;
use crate::output::results::FileResult;
use rayon::prelude::*;
use std::io::IsTerminal;

/// Stack of each worker thread: the front end, the checkers and synthesis recurse over the
/// code's nesting (a long `a + b + c + …`, nested `if`s), which the input controls. Reserved,
/// not committed: pages are touched only as deep as a file goes.
pub const WORKER_STACK: usize = 512 << 20;

/// Runs `f` on a thread with a [`WORKER_STACK`] stack (inline if no such thread can be made); a
/// panic in `f` goes on in the caller.
pub fn on_worker_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let once = std::sync::Mutex::new(Some(f));
    let run = || once.lock().ok().and_then(|mut f| f.take()).map(|f| f());
    std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("autosync".into())
            .stack_size(WORKER_STACK)
            .spawn_scoped(s, run);
        match worker {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => run(),
        }
    })
    .expect("the work runs exactly once")
}

/// Where a run is, shown on the progress bar (a no-op without one).
pub(super) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// No progress shown (an editor's buffer).
    pub(super) fn none() -> Progress {
        Progress(None)
    }

    /// The kernel now checked (`file: kernel`).
    pub(super) fn kernel(&self, file: &str, kernel: &str) {
        if let Some(b) = &self.0 {
            b.set_message(format!("{file}: {kernel}"));
        }
    }
}

/// Runs `work` over the inputs on a rayon pool with a progress bar (files done, and the file
/// and kernel being checked); results in input order.
pub(super) fn process<F>(inputs: &[Input], run: &RunOptions, work: F) -> Vec<FileResult>
where
    F: Fn(&Input, &Progress) -> FileResult + Sync,
{
    let bar = if !run.quiet && std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        let style = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        pb.set_style(style);
        Some(pb)
    } else {
        None
    };
    let progress = Progress(bar);
    let job = || {
        inputs
            .par_iter()
            .map(|i| {
                if let Some(b) = &progress.0 {
                    b.set_message(i.name());
                }
                let r = work(i, &progress);
                if let Some(b) = &progress.0 {
                    b.inc(1);
                }
                r
            })
            .collect::<Vec<_>>()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(run.jobs)
        .stack_size(WORKER_STACK)
        .build();
    let results = match pool {
        Ok(pool) => pool.install(job),
        Err(_) => job(),
    };
    if let Some(b) = progress.0 {
        b.finish_and_clear();
    }
    results
}
