//! What the server is started with: the log file, and the options `check` and `fix` run with
//! (the command line's kernel-input and solver flags, with their defaults).

use crate::workflow::{CheckOptions, FixRequest};
use std::path::PathBuf;

/// `autosync server`'s options.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// `--log FILE`: the debug log.
    pub log: Option<PathBuf>,
    /// How each document is checked (its paths are ignored: the editor names the documents).
    pub check: CheckOptions,
    /// How barriers are synthesized for the code actions (mode and paths are ignored).
    pub fix: FixRequest,
}
