//! `autosync server`: a language server over standard input and output. Editors get a
//! diagnostic for every finding `check` reports and code actions with verified edits (the
//! barriers `fix` synthesizes, each barrier alone where it verifies alone, redundant barriers
//! `--minimize` removes, suppression comments), while files are checked on a background
//! thread. Only `cli.rs` knows this module; it checks through `workflow::editor`, the jobs the
//! command line runs.
//!
//! `transport.rs` reads and writes framed JSON-RPC, `session.rs` is the main loop and the
//! lifecycle, `document_events.rs` and `code_actions.rs` the handlers over `state.rs`;
//! `worker.rs` runs `analysis.rs` (which uses `diagnostics.rs`, `suppression.rs`,
//! `barriers.rs`, `removals.rs` and `verify.rs`) per `job.rs`; `documents.rs`, `offer.rs`,
//! `hunks.rs`, `positions.rs`, `progress.rs`, `events.rs`, `options.rs` and `log.rs` are the
//! leaves.

mod analysis;
mod barriers;
mod code_actions;
mod diagnostics;
mod document_events;
mod documents;
mod events;
mod hunks;
mod job;
mod log;
mod offer;
mod options;
mod positions;
mod progress;
mod removals;
mod session;
mod state;
mod suppression;
mod transport;
mod verify;
mod worker;

pub use options::ServerOptions;

use crate::vocab::exit;
use std::sync::mpsc::channel;
use std::sync::Arc;

/// Runs the server on standard input and output until the editor says `exit`; returns the
/// process exit code.
pub fn run(o: ServerOptions) -> u8 {
    let log = match log::Log::open(o.log.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            let path = o.log.as_deref().unwrap_or(std::path::Path::new("")).display();
            eprintln!("error: cannot write the log {path}: {e}");
            return exit::INPUT;
        }
    };
    log.line(|| format!("autosync {} server started", env!("CARGO_PKG_VERSION")));
    // A check's kernels and query lanes run on rayon's global pool here (the command line
    // makes a pool per run): its threads need the deep stacks the worker has.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(crate::workflow::WORKER_STACK)
        .build_global();
    let (tx, rx) = channel();
    let (out, writer) = transport::start(std::io::stdin(), std::io::stdout(), tx.clone(), &log);
    let worker = match worker::Worker::start(Arc::new(o), tx, log.clone()) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: cannot start the checking thread: {e}");
            return exit::INPUT;
        }
    };
    let st = state::State {
        out,
        log: log.clone(),
        docs: Default::default(),
        worker,
        progress: Default::default(),
        pending: vec![],
    };
    let code = session::Session::new(st).run(rx);
    // The session's outbox is gone: the writer ends once everything queued is written.
    let _ = writer.join();
    log.line(|| format!("exit {code}"));
    code
}
