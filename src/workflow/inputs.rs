//! The inputs of a run: files and directories expanded, standard input read, each file's
//! config found and excludes applied; how an input is loaded, and what a file without kernels
//! reports.

use super::cached::Units;
use super::config::{Config, ConfigCache, IgnoreEntry};
use super::errors::{error_free, error_result};
use super::options::RunOptions;
use super::suppress::Suppressions;
use crate::cache::Store;
use crate::front::{self, FrontOptions, SourceUnit};
use crate::output::results::{FileError, FileResult};
use crate::vocab::exit;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

/// One input with the configuration that applies to it.
pub(super) struct Input {
    pub(super) path: PathBuf,
    pub(super) config: Option<Arc<Config>>,
    /// Named on the command line (not found by a directory search).
    pub(super) explicit: bool,
    /// The text, when it came from standard input.
    pub(super) stdin: Option<String>,
}

impl Input {
    pub(super) fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The suppressions of a lowered unit of this input.
    pub(super) fn suppressions(&self, unit: &SourceUnit) -> Suppressions {
        Suppressions::new(&unit.texts, self.ignores())
    }

    pub(super) fn ignores(&self) -> Vec<IgnoreEntry> {
        self.config
            .as_ref()
            .map(|c| c.ignores_for(&self.path))
            .unwrap_or_default()
    }
}

/// The display name of standard input when `--stdin-filename` is not given.
pub(super) const STDIN_NAME: &str = "<stdin>";

/// Reads standard input as source text (UTF-8, no NUL bytes).
pub(super) fn read_stdin(name: &str) -> Result<String, FileError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::input(name, format!("cannot read standard input: {e}"), None))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        FileError::input(
            name,
            "standard input is not valid UTF-8",
            Some("autosync reads CUDA sources as UTF-8"),
        )
    })?;
    if text.contains('\0') {
        return Err(FileError::input(name, "standard input contains NUL bytes", None));
    }
    Ok(text)
}

/// Expands the inputs, finds their configs and drops excluded files. Missing paths and config
/// errors become error results (exit 2); config errors are printed once per config file.
pub(super) fn collect_inputs(paths: &[PathBuf], run: &RunOptions) -> Result<(Vec<Input>, Vec<FileResult>), u8> {
    let stdin = paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin > 1 {
        eprintln!("error: `-` (standard input) can be given once");
        return Err(exit::INPUT);
    }
    let files: Vec<PathBuf> = paths.iter().filter(|p| p.as_os_str() != "-").cloned().collect();
    let walk = crate::workflow::walk::expand(&files);
    let mut errors: Vec<FileResult> = walk
        .missing
        .iter()
        .map(|p| {
            let name = p.display().to_string();
            error_result(&FileError::input(&name, "file not found", Some("check the path")))
        })
        .collect();
    if !run.quiet {
        for s in &walk.skipped {
            eprintln!("warning: skipped: {s}");
        }
    }
    if run.verbose {
        for s in &walk.loops {
            eprintln!("note: not followed: {s}");
        }
    }
    let mut found: Vec<(PathBuf, bool, Option<String>)> =
        walk.files.into_iter().map(|f| (f.path, f.explicit, None)).collect();
    if stdin == 1 {
        let path = run.stdin_filename.clone().unwrap_or_else(|| PathBuf::from(STDIN_NAME));
        match read_stdin(&path.display().to_string()) {
            Ok(text) => found.push((path, true, Some(text))),
            Err(e) => errors.push(error_result(&e)),
        }
    }
    if found.is_empty() && errors.is_empty() {
        eprintln!("error: no .cu/.cuh files found in the given paths");
        return Err(exit::INPUT);
    }
    let cache = ConfigCache::new(run.config.clone(), run.no_config);
    let mut reported = BTreeSet::new();
    let mut out = Vec::new();
    for (f, explicit, stdin) in found {
        // Standard input without a name looks for a config from the working directory.
        let lookup = if f.as_os_str() == STDIN_NAME {
            PathBuf::from(".").join(STDIN_NAME)
        } else {
            f.clone()
        };
        match cache.for_file(&lookup) {
            Ok(Some(c)) if c.is_excluded(&lookup) && stdin.is_none() => {
                if run.verbose {
                    eprintln!("{}: excluded by {}", f.display(), c.path.display());
                }
            }
            Ok(config) => {
                if run.verbose {
                    if let Some(c) = &config {
                        if reported.insert(c.path.clone()) {
                            eprintln!("note: using {}", c.path.display());
                        }
                    }
                }
                out.push(Input {
                    path: f,
                    config,
                    explicit,
                    stdin,
                });
            }
            Err(e) => {
                if reported.insert(e.path.clone()) {
                    eprintln!("{e}");
                }
                let mut r = error_result(&FileError::input(&f.display().to_string(), "bad config file", None));
                // Already printed once per config file above.
                r.messages.clear();
                errors.push(r);
            }
        }
    }
    Ok((out, errors))
}

/// Loads an input: from its file, or the text read from standard input.
pub(super) fn load(i: &Input, opts: &FrontOptions, store: Option<&Store>) -> Result<SourceUnit, front::FrontError> {
    let units = store.map(Units);
    let cache = units.as_ref().map(|u| u as &dyn front::UnitCache);
    match &i.stdin {
        Some(text) => front::lower_text_cached(&i.path, text, opts, cache),
        None => front::load_cached(&i.path, opts, cache),
    }
}

/// A file without kernels. An empty file is an input error when the user named it; a file
/// with code but no kernel (host code only, or device helpers) is a note: there is nothing to
/// check in it, which is not the user's mistake. A directory search notes both (headers have
/// no kernels).
pub(super) fn no_kernels(i: &Input, text: &str) -> FileResult {
    let empty = text.trim().is_empty();
    let what = if empty {
        "file is empty"
    } else {
        "no __global__ kernel in this file"
    };
    let file = i.name();
    if i.explicit && empty {
        return error_result(&FileError::input(
            &file,
            what,
            Some("pass a .cu file that defines a __global__ kernel"),
        ));
    }
    let mut r = error_free(&file);
    r.kernel_free = i.explicit;
    let tail = if i.explicit { " (nothing to check)" } else { "" };
    r.messages.push(format!("{file}: note: {what}{tail}"));
    r
}
