//! The result cache (`workflow::cached`, `cache/`): a kernel answered from it gets the verdict
//! and findings a fresh check gives; a change to the kernel's code, even in a header it
//! includes, makes it checked again; concurrent runs share one cache without damaging it;
//! `--no-cache` neither reads nor writes it.

use crate::common::bin;
use serde_json::Value;
use std::path::Path;

const KERNEL: &str = r#"//--blockDim=64 --gridDim=4
#include "sync.cuh"

__global__ void shifted(const float *in, float *out) {
    __shared__ float s[64];
    int t = threadIdx.x, g = blockIdx.x * 64 + t;
    s[t] = in[g];
    sync_all();
    out[g] = s[(t + 1) % 64];
}
"#;

/// The header with the barrier, and the same header (same size) without it.
const WITH_BARRIER: &str = "__device__ inline void sync_all() { __syncthreads(); }\n";
const WITHOUT_BARRIER: &str = "__device__ inline void sync_all() { /*syncthreads*/ }\n";

/// `check -v` on `file` with the cache in `cache`: (exit code, whether the kernel came from
/// the cache).
fn check(file: &Path, cache: &Path) -> (i32, bool) {
    let out = bin()
        .args(["check", "-v", "--cache-dir"])
        .arg(cache)
        .arg(file)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), err.contains("(from the cache)"))
}

#[test]
fn a_changed_header_invalidates_the_kernel_that_includes_it() {
    let d = tempfile::tempdir().unwrap();
    let (file, header, cache) = (d.path().join("k.cu"), d.path().join("sync.cuh"), d.path().join("cache"));
    std::fs::write(&file, KERNEL).unwrap();
    std::fs::write(&header, WITH_BARRIER).unwrap();
    assert_eq!(check(&file, &cache), (0, false), "first run: checked, clean");
    assert_eq!(check(&file, &cache), (0, true), "unchanged: from the cache");
    std::fs::write(&header, WITHOUT_BARRIER).unwrap();
    assert_eq!(
        check(&file, &cache),
        (1, false),
        "the header lost its barrier: checked again, racy"
    );
    assert_eq!(check(&file, &cache), (1, true));
    std::fs::write(&header, WITH_BARRIER).unwrap();
    assert_eq!(
        check(&file, &cache),
        (0, true),
        "back to the first header: its answer is still kept"
    );
}

#[test]
fn no_cache_neither_reads_nor_writes() {
    let d = tempfile::tempdir().unwrap();
    let (file, cache) = (d.path().join("k.cu"), d.path().join("cache"));
    std::fs::write(&file, KERNEL.replace("#include \"sync.cuh\"", WITH_BARRIER)).unwrap();
    let out = bin()
        .args(["check", "-v", "--no-cache"])
        .env("AUTOSYNC_CACHE_DIR", &cache)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!cache.exists(), "--no-cache made the cache directory");
    assert_eq!(check(&file, &cache), (0, false));
    assert_eq!(
        check(&file, &cache),
        (0, true),
        "AUTOSYNC_CACHE_DIR and --cache-dir name one cache"
    );
    let out = bin().args(["check", "-v", "--no-cache"]).arg(&file).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("(from the cache)"));
}

/// The per-kernel results of a JSON run, without the wall-clock times and the solver query
/// count (a query whose solver call a loaded machine's wall clock stops is asked again
/// another way: more queries, the same answer).
fn verdicts(json: &[u8]) -> Vec<Value> {
    let v: Value = serde_json::from_slice(json).expect("JSON output");
    let mut kernels = v["kernels"].as_array().cloned().unwrap_or_default();
    for k in &mut kernels {
        k["stats"]["millis"] = Value::Null;
        k["report"]["queries"] = Value::Null;
    }
    kernels
}

fn check_corpus(dirs: &[&str], cache: Option<&Path>) -> std::process::Child {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_autosync"));
    c.args(["check", "--format", "json", "-j", "1"]).args(dirs);
    match cache {
        Some(dir) => c.arg("--cache-dir").arg(dir),
        None => c.arg("--no-cache"),
    };
    c.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Two runs start on one empty cache at once, then a third reads what they left: all three
/// give what a run without the cache gives, kernel for kernel.
#[test]
fn concurrent_runs_share_one_cache_and_change_no_verdict() {
    let dirs = [
        "corpus/racy",
        "corpus/micro",
        "corpus/named",
        "corpus/pipeline",
        "corpus/launch",
    ];
    let d = tempfile::tempdir().unwrap();
    let cache = d.path().join("cache");
    let fresh = check_corpus(&dirs, None);
    let (a, b) = (check_corpus(&dirs, Some(&cache)), check_corpus(&dirs, Some(&cache)));
    let want = verdicts(&fresh.wait_with_output().unwrap().stdout);
    assert!(want.len() > 50, "the corpus directories hold kernels");
    for run in [a, b] {
        assert_eq!(verdicts(&run.wait_with_output().unwrap().stdout), want);
    }
    let warm = check_corpus(&dirs, Some(&cache)).wait_with_output().unwrap();
    assert_eq!(
        verdicts(&warm.stdout),
        want,
        "answers from the cache differ from fresh ones"
    );
}

const TWO_KERNELS: &str = r#"//--blockDim=64 --gridDim=4
__global__ void first(float *a) {
    __shared__ float s[64];
    s[threadIdx.x] = a[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    a[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}

__global__ void second(float *b) {
    __shared__ float s[64];
    s[threadIdx.x] = b[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    b[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
"#;

/// The kernels `check -v` (the check hook's command, run in `repo` with the default cache)
/// answered from the cache.
fn cached_kernels(repo: &Path) -> Vec<String> {
    let out = bin().current_dir(repo).args(["check", "-v", "k.cu"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    err.lines()
        .filter(|l| l.ends_with("(from the cache)"))
        .filter_map(|l| l.split('`').nth(1).map(str::to_string))
        .collect()
}

/// In a git repository, the cache lives in `.autosync_cache` at its root, ignored by git; a
/// change to one kernel of a file has only that kernel checked again.
#[test]
fn only_the_changed_kernel_is_checked_again() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(repo)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    std::fs::write(repo.join("k.cu"), TWO_KERNELS).unwrap();
    assert!(cached_kernels(repo).is_empty());
    assert!(repo.join(".autosync_cache").is_dir());
    assert_eq!(
        git(&["status", "--porcelain"]).trim(),
        "?? k.cu",
        "the cache is ignored by git"
    );
    assert_eq!(cached_kernels(repo), ["first", "second"]);
    let changed = TWO_KERNELS.replace("s[(threadIdx.x + 1) % 64]", "s[(threadIdx.x + 2) % 64]");
    std::fs::write(repo.join("k.cu"), changed).unwrap();
    assert_eq!(cached_kernels(repo), ["first"], "only `second` changed");
}
