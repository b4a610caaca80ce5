//! The real binary: exit codes, in-place fixes, --diff/--check/--stdout, JSON, errors.

mod common;

use common::{bin, copy_to_temp};

#[test]
fn check_exit_codes() {
    bin().args(["check", "corpus/sdk/reduce_tree.cu"]).assert().code(0);
    let out = bin()
        .args(["check", "corpus/micro/straight_line.cu"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("race (WAR) on `a`"), "{text}");
    assert!(text.contains("straight_line.cu:9:"), "{text}");
    assert!(text.contains("witness: thread "), "{text}");
    bin().args(["check", "corpus/named/deadlock_cycle.cu"]).assert().code(1);
    bin().args(["check", "does/not/exist.cu"]).assert().code(2);
    bin()
        .args(["check", "--block-dim", "[0,1]", "corpus/sdk/reduce_tree.cu"])
        .assert()
        .code(2);
}

#[test]
fn check_json_is_versioned() {
    let out = bin()
        .args(["check", "--format", "json", "corpus/micro/two_ifs.cu"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["kernels"][0]["verdict"], "defects");
    assert!(!v["kernels"][0]["report"]["races"].as_array().unwrap().is_empty());
}

#[test]
fn fix_in_place_then_clean_and_idempotent() {
    let (_d, f) = copy_to_temp("micro/two_races_two_barriers.cu");
    let before = std::fs::read_to_string(&f).unwrap();
    let assert = bin().arg("fix").arg(&f).assert().code(0);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("inserted __syncthreads() (cost 1; removes 1 race"),
        "{err}"
    );
    let after = std::fs::read_to_string(&f).unwrap();
    assert_ne!(before, after);
    assert_eq!(after.matches("__syncthreads();").count(), 2);
    bin().arg("check").arg(&f).assert().code(0);
    bin().arg("fix").arg("--check").arg(&f).assert().code(0);
    bin().arg("fix").arg(&f).assert().code(0);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), after);
}

#[test]
fn fix_diff_check_and_stdout_write_nothing() {
    let (_d, f) = copy_to_temp("micro/straight_line.cu");
    let before = std::fs::read_to_string(&f).unwrap();
    let out = bin()
        .args(["fix", "--diff"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let diff = String::from_utf8(out).unwrap();
    assert!(diff.contains("+    __syncthreads();"), "{diff}");
    bin().args(["fix", "--check"]).arg(&f).assert().code(1);
    let out = bin()
        .args(["fix", "--stdout"])
        .arg(&f)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(out).unwrap().contains("__syncthreads();"));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), before);
}

#[test]
fn unfixable_exits_3_and_writes_nothing() {
    let (_d, f) = copy_to_temp("racy/same_statement.cu");
    let before = std::fs::read_to_string(&f).unwrap();
    let assert = bin().arg("fix").arg(&f).assert().code(3);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("unfixable") && err.contains("same address"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), before);
}

/// A named-fallback placement that only the named checker verifies is reported as unfixable
/// (what `check` will keep saying), with the reason, not as a failed re-verification.
#[test]
fn named_fallback_rejected_by_check_is_unfixable() {
    let (_d, f) = copy_to_temp("regress/value_guarded_branch.cu");
    let before = std::fs::read_to_string(&f).unwrap();
    let assert = bin().arg("fix").arg(&f).assert().code(3);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("is unfixable; nothing written"), "{err}");
    assert!(err.contains("named-barrier checker verifies"), "{err}");
    assert!(!err.contains("does not verify"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), before);
}

#[test]
fn fix_json_reports_barriers() {
    let out = bin()
        .args([
            "fix",
            "--diff",
            "--format",
            "json",
            "corpus/micro/loop_intra.cu",
            "--param",
            "n=4",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let k = &v["files"][0]["kernels"][0];
    assert_eq!(k["status"], "fixed");
    assert_eq!(k["barriers"].as_array().unwrap().len(), 1);
    assert_eq!(k["cost"], 100.0);
}

#[test]
fn bad_input_is_located_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.cu");
    std::fs::write(
        &f,
        "__global__ void k(float *a) {\n  a[threadIdx.x] = 1;\n  if (a[0] {\n}\n",
    )
    .unwrap();
    let assert = bin().arg("check").arg(&f).assert().code(2);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("bad.cu:") && err.contains("error"), "{err}");
    let g = dir.path().join("goto.cu");
    std::fs::write(
        &g,
        "//--blockDim=32\n__global__ void k(float *a) {\n  goto end;\n  end: a[0] = 1;\n}\n",
    )
    .unwrap();
    let assert = bin().arg("check").arg(&g).assert().code(4);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("goto.cu:3:3") && err.contains("goto"), "{err}");
}

#[test]
fn minimize_removes_a_needless_barrier() {
    let (_d, f) = copy_to_temp("regress/redundant_barriers.cu");
    let assert = bin()
        .args(["fix", "--minimize", "--param", "n=4"])
        .arg(&f)
        .assert()
        .code(0);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("removed __syncthreads()") && err.contains("101 -> 1"),
        "{err}"
    );
    let after = std::fs::read_to_string(&f).unwrap();
    assert_eq!(after.matches("__syncthreads();").count(), 1, "{after}");
    bin().args(["check", "--param", "n=4"]).arg(&f).assert().code(0);
    // Without --minimize the author's barriers are kept.
    let (_d2, g) = copy_to_temp("regress/redundant_barriers.cu");
    bin()
        .args(["fix", "--check", "--param", "n=4"])
        .arg(&g)
        .assert()
        .code(0);
}
