//! A Python virtualenv with packages from PyPI, for tests that drive real third-party tools.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh virtualenv in `dir` with `packages` installed; returns its `bin` directory.
pub fn venv_with(dir: &Path, packages: &[&str]) -> PathBuf {
    let env = dir.join("venv");
    let ok = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&env)
        .status()
        .expect("python3 runs");
    assert!(ok.success(), "python3 -m venv failed");
    let bin = env.join("bin");
    let out = Command::new(bin.join("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(packages)
        .output()
        .expect("pip runs");
    assert!(
        out.status.success(),
        "pip install {packages:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    bin
}
