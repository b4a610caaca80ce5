//! Which files a run reads and how its diff applies: `.gitignore`d files, hidden directories and
//! symlink cycles in directory walks, "file not found", standard input (`-` with
//! `--stdin-filename`), and `git apply --check` on the diff of `fix --diff .` in a git repo.

use crate::common::bin;
use std::path::Path;
use std::process::Command;

const RACY: &str = "corpus/micro/straight_line.cu";

fn git(repo: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("git").current_dir(repo).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A directory tree with racy kernels at `paths` (relative).
fn tree(paths: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for p in paths {
        let f = dir.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::copy(RACY, &f).unwrap();
    }
    dir
}

/// The kernel files a `check --format json .` run in `dir` reports.
fn checked(dir: &Path) -> Vec<String> {
    let out = bin()
        .current_dir(dir)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn gitignored_files_and_hidden_directories_are_skipped_but_named_files_are_read() {
    let dir = tree(&["k/a.cu", "build/gen.cu", ".cache/x.cu", "k/tmp.cu"]);
    std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    std::fs::write(dir.path().join(".ignore"), "k/tmp.cu\n").unwrap();
    assert_eq!(checked(dir.path()), ["k/a.cu"]);
    // Named explicitly, an ignored file is read.
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "build/gen.cu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_symlink_cycle_visits_each_file_once() {
    let dir = tree(&["k/a.cu"]);
    std::os::unix::fs::symlink("..", dir.path().join("k/up")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("k"), dir.path().join("again")).unwrap();
    // `k/up` leads back to the top (a cycle); `again` is `k` under another name.
    assert_eq!(checked(dir.path()), ["k/a.cu"], "once, under the path without links");
}

#[test]
fn a_missing_path_is_file_not_found_and_the_rest_still_runs() {
    let out = bin().args(["check", "nonexist.cu", RACY]).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nonexist.cu: error: file not found"), "{err}");
    assert!(!err.contains("nonexist.cu:1:1"), "{err}");
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("data race (WAR) on `a`"));
}

#[test]
fn stdin_is_checked_and_fixed_under_its_stdin_filename() {
    let text = std::fs::read_to_string(RACY).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("src");
    std::fs::create_dir(&sub).unwrap();
    // The autosync.yaml above the named path applies: one suppressing another kernel leaves the
    // race, one suppressing this kernel by name removes it.
    std::fs::write(dir.path().join("autosync.yaml"), "ignore:\n  - kernel: nothing_here\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "-", "--stdin-filename", "src/k.cu"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("src/k.cu:9:15"),
        "messages use the stdin filename: {stdout}"
    );
    std::fs::write(dir.path().join("autosync.yaml"), "ignore:\n  - kernel: straight_line\n").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["check", "-", "--stdin-filename", "src/k.cu"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "the config found from src/k.cu applies");
    // `fix -` prints the patched text and writes nothing.
    let out = bin()
        .current_dir(dir.path())
        .args(["fix", "--no-config", "-", "--stdin-filename", "src/k.cu"])
        .write_stdin(text.clone())
        .output()
        .unwrap();
    let patched = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(patched.matches("__syncthreads();").count(), 1, "{patched}");
    assert!(!sub.join("k.cu").exists());
    let expected = bin().args(["fix", "--stdout", RACY]).output().unwrap().stdout;
    assert_eq!(patched.as_bytes(), expected.as_slice());
    // A file without kernels on stdin comes back unchanged (an editor keeps its buffer): host
    // code only is a note, not an error.
    let out = bin().args(["fix", "-"]).write_stdin("int x;\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"int x;\n");
}

#[test]
fn fix_diff_of_dot_applies_with_git_and_exits_1() {
    let dir = tree(&["k/a.cu", "b.cu"]);
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    git(repo, &["add", "."]);
    let out = bin().current_dir(repo).args(["fix", "--diff", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "changes needed");
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.contains("--- a/k/a.cu\n+++ b/k/a.cu\n"), "{diff}");
    assert!(diff.contains("--- a/b.cu\n"), "{diff}");
    std::fs::write(repo.join("fix.patch"), &diff).unwrap();
    git(repo, &["apply", "--check", "fix.patch"]);
    // An absolute path under the working directory gives the same relative headers.
    let abs = repo.join("k/a.cu");
    let out = bin()
        .current_dir(repo)
        .args(["fix", "--diff"])
        .arg(&abs)
        .output()
        .unwrap();
    let diff = String::from_utf8(out.stdout).unwrap();
    assert!(diff.starts_with("--- a/k/a.cu\n"), "{diff}");
    // Applied, nothing is left to change.
    git(repo, &["apply", "fix.patch"]);
    let out = bin().current_dir(repo).args(["fix", "--diff", "."]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}
