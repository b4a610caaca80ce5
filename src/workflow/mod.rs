//! Many files at once: input discovery (`walk.rs`), standard input, config discovery and
//! excludes, suppressions, files in parallel (rayon), a progress bar on terminals, results in
//! file order whatever the scheduling, the output formats and the closing summary.
//!
//! It takes plain option structs (`options.rs`); only `cli.rs` knows the command line.
//! `inputs.rs` finds the inputs, `parallel.rs` runs one job per file, `check_one.rs` and
//! `fix_one.rs` are those jobs (`editor.rs` runs them on an editor's buffer), `notes.rs`, `errors.rs` and `unlowered.rs` (kernels the front
//! end could not lower) what a file's result says besides its findings, and `present.rs` prints the results and decides the exit code.

mod cached;
mod check_one;
pub mod config;
pub mod editor;
mod errors;
mod fix_one;
mod inputs;
mod notes;
mod options;
mod parallel;
mod present;
pub mod suppress;
mod unlowered;
pub mod walk;

pub use errors::front_error;
// The command line's tests read the fix options a request makes.
#[cfg(test)]
pub(crate) use fix_one::fix_options;
pub use options::{CacheChoice, CheckOptions, Color, FixMode, FixRequest, Format, RunOptions};
pub use parallel::{on_worker_stack, WORKER_STACK};

use crate::output::diag::Style;
use crate::vocab::exit;
use check_one::check_one;
use fix_one::fix_one;
use inputs::collect_inputs;
use parallel::process;
use present::{color_on, finish};
use std::io::IsTerminal;

/// `autosync check`.
pub fn run_check(o: &CheckOptions) -> u8 {
    let (inputs, errors) = match collect_inputs(&o.paths, &o.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let style = Style::new(color_on(o.run.color, std::io::stdout().is_terminal()));
    let store = cached::open(&o.run.cache);
    let mut results = process(&inputs, &o.run, |i, p| check_one(i, o, style, store.as_ref(), p));
    cached::prune(store.as_ref());
    results.extend(errors);
    finish("check", results, &o.run)
}

/// `autosync fix`.
pub fn run_fix(o: &FixRequest) -> u8 {
    let bad = |c: Option<f64>, ok: fn(f64) -> bool| c.is_some_and(|v| !(v.is_finite() && ok(v)));
    if bad(o.cost_loop, |v| v >= 1.0) || bad(o.cost_if, |v| v > 0.0) {
        eprintln!("error: --cost-loop must be >= 1 and --cost-if > 0");
        return exit::INPUT;
    }
    let (inputs, errors) = match collect_inputs(&o.paths, &o.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut results = process(&inputs, &o.run, |i, _| fix_one(i, o));
    results.extend(errors);
    finish("fix", results, &o.run)
}
