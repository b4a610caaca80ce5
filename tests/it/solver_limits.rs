//! Solver limits: a query the solver cannot decide in time, or a kernel whose wall-clock budget
//! (`--kernel-timeout`) runs out, makes the result inconclusive (exit 4) — never clean.

use crate::common::run;
use std::path::Path;

/// Nonlinear index arithmetic over symbolic parameters: race-free (`t*t*t` is injective for
/// `t < 256`), but proving it is hard for bit-vector solving, so a tiny limit leaves it open.
const HARD: &str = "//--blockDim=256 --gridDim=1\n__global__ void hard(int *o, int p, int q) {\n  __shared__ int s[1 << 24];\n  int t = threadIdx.x;\n  s[t * t * t + p * q] = t;\n  o[t] = s[t * t * t + p * q];\n}\n";

fn hard_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("hard.cu");
    std::fs::write(&path, HARD).unwrap();
    path
}

#[test]
fn a_one_millisecond_query_timeout_is_inconclusive_not_clean() {
    let dir = tempfile::tempdir().unwrap();
    let path = hard_file(dir.path());
    let (code, out) = run(&["check", "--timeout", "1"], &path);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("assumed: the solver could not decide"), "{out}");
    let (code, out) = run(&["fix", "--timeout", "1"], &path);
    assert_ne!(code, 0, "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HARD);
}

#[test]
fn an_exhausted_kernel_budget_is_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let path = hard_file(dir.path());
    let (code, out) = run(&["check", "--kernel-timeout", "0.001"], &path);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("time budget ran out"), "{out}");
    let (code, out) = run(&["fix", "--kernel-timeout", "0.001"], &path);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("inconclusive; nothing written"), "{out}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), HARD);
}

#[test]
fn a_bad_kernel_timeout_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = hard_file(dir.path());
    for bad in ["0", "-1", "soon", "NaN"] {
        let (code, out) = run(&["check", &format!("--kernel-timeout={bad}")], &path);
        assert_eq!(code, 2, "{bad}: {out}");
        assert!(out.contains("positive number of seconds"), "{bad}: {out}");
    }
}

#[test]
fn an_easy_kernel_finishes_within_the_default_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("easy.cu");
    std::fs::write(&path, "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n  __syncthreads();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n").unwrap();
    let (code, out) = run(&["check"], &path);
    assert_eq!(code, 0, "{out}");
}
