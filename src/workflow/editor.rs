//! One editor buffer through the jobs the command line runs: the text the editor holds (saved
//! or not) is checked or fixed under its file's path, with that file's `autosync.yaml`,
//! suppressions and `compile_commands.json` flags, exactly as `check -`/`fix -` with
//! `--stdin-filename` do. The language server (`server/`) calls these; there is no second
//! pipeline.

use super::check_one::check_one;
use super::config::{ConfigCache, ConfigError};
use super::errors::error_result;
use super::fix_one::fix_one;
use super::inputs::Input;
use super::options::{CheckOptions, FixMode, FixRequest, Format, RunOptions};
use super::parallel::Progress;
use crate::output::diag::Style;
use crate::output::results::{FileError, FileResult};
use std::path::Path;

/// What became of one buffer.
pub enum BufferRun<T> {
    /// The file's `autosync.yaml` excludes it: nothing is checked, as for a directory run.
    Excluded,
    /// The result.
    Done(T),
}

/// A buffer `fix` ran on: the file's result and the text `fix` would write (the buffer's own
/// text when nothing changes or nothing could be done).
pub struct FixedBuffer {
    /// Kernels, barriers, defects, errors: what `fix --format json` reports.
    pub result: FileResult,
    /// The patched text, as `fix --stdout` prints it.
    pub text: String,
}

/// `check` on the text of a buffer named `path` (an absolute path).
pub fn check_buffer(path: &Path, text: &str, o: &CheckOptions) -> BufferRun<FileResult> {
    let o = CheckOptions {
        run: structured(&o.run),
        ..o.clone()
    };
    match input(path, text, &o.run) {
        Ok(Some(i)) => {
            // Answers for unchanged kernels (and an unchanged file) come from the result cache.
            let store = super::cached::open(&o.run.cache);
            BufferRun::Done(check_one(&i, &o, Style::new(false), store.as_ref(), &Progress::none()))
        }
        Ok(None) => BufferRun::Excluded,
        Err(e) => BufferRun::Done(bad_config(path, &e)),
    }
}

/// `fix --stdout` on the text of a buffer named `path`: nothing is written.
pub fn fix_buffer(path: &Path, text: &str, o: &FixRequest) -> BufferRun<FixedBuffer> {
    let o = FixRequest {
        mode: FixMode::Stdout,
        run: structured(&o.run),
        ..o.clone()
    };
    match input(path, text, &o.run) {
        Ok(Some(i)) => {
            let mut result = fix_one(&i, &o);
            // In `--stdout` mode standard output is exactly the patched (or echoed) text.
            let text = std::mem::take(&mut result.stdout);
            BufferRun::Done(FixedBuffer { result, text })
        }
        Ok(None) => BufferRun::Excluded,
        Err(e) => BufferRun::Done(FixedBuffer {
            result: bad_config(path, &e),
            text: text.to_string(),
        }),
    }
}

/// The run options of a buffer: structured results only (nothing is rendered or printed).
fn structured(run: &RunOptions) -> RunOptions {
    RunOptions {
        format: Format::Json,
        quiet: true,
        verbose: false,
        ..run.clone()
    }
}

/// The input a buffer stands for, with its file's config; `None` when the config excludes it.
fn input(path: &Path, text: &str, run: &RunOptions) -> Result<Option<Input>, ConfigError> {
    let configs = ConfigCache::new(run.config.clone(), run.no_config);
    let config = configs.for_file(path)?;
    if config.as_ref().is_some_and(|c| c.is_excluded(path)) {
        return Ok(None);
    }
    Ok(Some(Input {
        path: path.to_path_buf(),
        config,
        explicit: true,
        stdin: Some(text.to_string()),
    }))
}

/// A file whose config cannot be read: an input error that says where the config is wrong
/// (the command line prints that line once per config file).
fn bad_config(path: &Path, e: &ConfigError) -> FileResult {
    let name = path.display().to_string();
    error_result(&FileError::input(&name, format!("bad config file: {e}"), None))
}
