//! Which files a run reads: paths named on the command line, and the `.cu`/`.cuh` files below
//! named directories found the way ripgrep and ruff walk (the `ignore` crate): `.gitignore`,
//! `.ignore` and `.git/info/exclude` are respected, hidden directories skipped, symbolic links
//! followed with cycles detected, and every file read once however many paths reach it.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// A file to read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    /// The path as shown in messages: relative paths without `./`.
    pub path: PathBuf,
    /// Named on the command line (not found by a directory walk).
    pub explicit: bool,
}

/// What expanding the command line's paths gave.
#[derive(Debug, Default)]
pub struct Walk {
    /// Files, sorted by path, each once.
    pub files: Vec<Found>,
    /// Paths that do not exist.
    pub missing: Vec<PathBuf>,
    /// Directory entries that could not be read (permissions, a broken link), as messages.
    pub skipped: Vec<String>,
    /// Symbolic links not followed because they lead back to an ancestor (a cycle).
    pub loops: Vec<String>,
}

/// Whether a walk error is a symlink cycle (which loses no file: its target is walked anyway).
fn is_loop(e: &ignore::Error) -> bool {
    match e {
        ignore::Error::Loop { .. } => true,
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => is_loop(err),
        _ => false,
    }
}

/// Whether a path contains no symbolic link (preferred when several paths reach one file).
fn direct(p: &Path) -> bool {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    std::fs::canonicalize(&abs).is_ok_and(|c| c == abs)
}

/// Whether a path names a CUDA source or header.
fn is_cuda(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "cu" || x == "cuh")
}

/// `p` without `.` components (`./k/a.cu` → `k/a.cu`); `.` itself stays `.`.
pub fn clean(p: &Path) -> PathBuf {
    let out: PathBuf = p.components().filter(|c| *c != Component::CurDir).collect();
    if out.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out
    }
}

/// Expands the command line's paths into the files to read.
pub fn expand(paths: &[PathBuf]) -> Walk {
    let mut w = Walk::default();
    // One file reached through several paths (a symlinked directory) is read once, under a
    // path without links when there is one.
    let mut seen: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut add = |w: &mut Walk, path: PathBuf, explicit: bool| {
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        match seen.get(&key) {
            Some(&i) => {
                let f = &mut w.files[i];
                f.explicit |= explicit;
                if !direct(&f.path) && direct(&path) {
                    f.path = path;
                }
            }
            None => {
                seen.insert(key, w.files.len());
                w.files.push(Found { path, explicit });
            }
        }
    };
    for p in paths {
        if !p.is_dir() {
            if p.exists() {
                add(&mut w, clean(p), true);
            } else {
                w.missing.push(p.clone());
            }
            continue;
        }
        let walker = ignore::WalkBuilder::new(p)
            .follow_links(true)
            // .gitignore applies also outside a git checkout (an exported tree, a tarball).
            .require_git(false)
            .sort_by_file_path(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            match entry {
                Ok(e) if e.file_type().is_some_and(|t| t.is_file()) && is_cuda(e.path()) => {
                    add(&mut w, clean(e.path()), false)
                }
                Ok(_) => {}
                Err(err) if is_loop(&err) => w.loops.push(err.to_string()),
                Err(err) => w.skipped.push(err.to_string()),
            }
        }
    }
    w.files.sort();
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_drops_current_dir_components() {
        assert_eq!(clean(Path::new("./k/./a.cu")), PathBuf::from("k/a.cu"));
        assert_eq!(clean(Path::new(".")), PathBuf::from("."));
        assert_eq!(clean(Path::new("/x/./y.cu")), PathBuf::from("/x/y.cu"));
    }
}
