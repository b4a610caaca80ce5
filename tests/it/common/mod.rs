//! Helpers shared by the integration tests: running the binary, copying corpus files to a
//! scratch directory, snapshotting a directory tree, a Python virtualenv for the tests that
//! drive third-party tools, and the case counts of the randomized sweeps.

pub use autosync_devtools::sweep;
pub mod venv;

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `autosync` binary under test.
pub fn bin() -> Command {
    Command::cargo_bin("autosync").unwrap()
}

/// Runs `autosync <args> <file>`; returns (exit code, stderr followed by stdout). A run past
/// 120 s is killed (exit code -1) so a hang fails the test instead of stalling the suite.
pub fn run(args: &[&str], file: &Path) -> (i32, String) {
    let out = bin()
        .args(args)
        .arg(file)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// Copies `corpus/<rel>` into a fresh temporary directory; returns the directory (keep it alive
/// while the copy is used) and the copy's path.
pub fn copy_to_temp(rel: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(Path::new(rel).file_name().unwrap());
    std::fs::copy(Path::new("corpus").join(rel), &dst).unwrap();
    (dir, dst)
}

/// Every file under `dir` (recursively), by displayed path, with its contents.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}
