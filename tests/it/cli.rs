//! The real binary: exit codes, in-place fixes, --diff/--check/--stdout, JSON, errors.

use crate::common::{bin, copy_to_temp};

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

fn stdout_of(args: &[&str]) -> (i32, String) {
    let out = bin().args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn github_and_concise_formats_give_one_line_per_finding() {
    let (rc, out) = stdout_of(&["check", "--format", "github", "corpus/micro/straight_line.cu"]);
    assert_eq!(rc, 1);
    assert!(
        out.starts_with(
            "::error file=corpus/micro/straight_line.cu,line=9,col=15,endLine=9,endColumn=23,title=autosync race::data race (WAR) on `a`"
        ),
        "{out}"
    );
    assert!(
        out.contains("%0Awitness: thread "),
        "notes follow, newline-escaped: {out}"
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    // fix --check: where each barrier goes (original lines), and what cannot be fixed.
    let (rc, out) = stdout_of(&[
        "fix",
        "--check",
        "--format",
        "github",
        "corpus/micro/straight_line.cu",
        "corpus/racy/same_statement.cu",
    ]);
    assert_eq!(rc, 3);
    assert!(
        out.contains("::error file=corpus/micro/straight_line.cu,line=11,col=1,endLine=11,endColumn=1,title=autosync missing-barrier::missing barrier: `autosync fix` inserts `__syncthreads();` before this line"),
        "{out}"
    );
    assert!(
        out.contains("title=autosync unfixable::kernel `same_statement` is unfixable"),
        "{out}"
    );
    let (rc, out) = stdout_of(&["check", "--format", "concise", "corpus/micro/two_ifs.cu"]);
    assert_eq!(rc, 1);
    for l in out.lines() {
        assert!(
            l.starts_with("corpus/micro/two_ifs.cu:") && l.contains(": error[race]: data race"),
            "{out}"
        );
    }
    assert!(!out.is_empty() && !out.contains("-->"), "{out}");
}

#[test]
fn named_barriers_in_json_carry_the_ids_and_counts_the_text_names() {
    let f = "corpus/named/unsynced/two_stage.cu";
    let out = bin().args(["fix", "--diff", "--format", "json", f]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, u64, u64)> = v["files"][0]["kernels"][0]["barriers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert_eq!(b["kind"], "named");
            (
                b["op"].as_str().unwrap().to_string(),
                b["id"].as_u64().unwrap(),
                b["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [("arrive", 1, 64), ("sync", 1, 64), ("arrive", 2, 64), ("sync", 2, 64)];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1, g.2), w);
    }
    let err = String::from_utf8(bin().args(["fix", "--diff", f]).output().unwrap().stderr).unwrap();
    assert!(
        err.contains("bar.arrive %0, %1;\" :: \"r\"(1), \"r\"(64) : \"memory\") (ID 1, 64 threads"),
        "{err}"
    );
    assert!(
        err.contains("orders 10↔12 together with the barrier at line 13"),
        "{err}"
    );
}

#[test]
fn races_across_iterations_read_in_execution_order_and_in_words() {
    let (rc, out) = stdout_of(&["check", "corpus/racy/reduce_missing_barrier.cu"]);
    assert_eq!(rc, 1);
    // The write of iteration half=2 runs before the read of iteration half=1: read after write.
    assert!(
        out.contains("data race (RAW) on `s`: write at corpus/racy/reduce_missing_barrier.cu:12:25, then read at"),
        "{out}"
    );
    assert!(
        out.contains(
            "across iterations of the `half` loop at line 11: the write runs in an earlier iteration than the read"
        ),
        "{out}"
    );
    assert!(out.contains("writes element "), "{out}");
    assert!(!out.contains("/2"), "no `half=1/2` shorthand: {out}");
}

/// A device function racing inside itself, called from two lines, through a pointer to `buf`.
const CALLEE: &str = "//--blockDim=64 --gridDim=1
__device__ void shift(float *s, int t)
{
    float x = s[t + 1];
    s[t] = x;
}

__global__ void twice(float *out)
{
    __shared__ float buf[65];
    float *p = buf;
    int t = threadIdx.x;
    buf[t] = t;
    __syncthreads();
    shift(p, t);
    __syncthreads();
    shift(p, t);
    __syncthreads();
    out[t] = p[t];
}
";

#[test]
fn a_race_in_a_called_function_is_one_finding_with_its_call_sites() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("callee.cu");
    std::fs::write(&f, CALLEE).unwrap();
    let out = bin().args(["check", "--format", "json"]).arg(&f).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = v["kernels"][0]["defects"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["reached_from"], serde_json::json!([15, 17]));
    assert_eq!(d[0]["written_as"], serde_json::json!(["s"]));
    assert_eq!(d[0]["array"], "buf");
    let msg = d[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("data race (WAR) on `s` (array `buf`)"), "{msg}");
    assert!(
        msg.ends_with("(in a called function, reached from lines 15, 17)"),
        "{msg}"
    );
    assert_eq!(v["kernels"][0]["races"], 1);
}

#[test]
fn annotate_writes_one_short_comment_per_barrier() {
    let out = bin()
        .args([
            "fix",
            "--stdout",
            "--annotate",
            "corpus/micro/two_races_two_barriers.cu",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let notes: Vec<&str> = text.lines().filter(|l| l.contains("// autosync:")).collect();
    assert_eq!(
        notes,
        [
            "    __syncthreads(); // autosync: orders a (lines 9↔10)",
            "    __syncthreads(); // autosync: orders b (lines 11↔12)"
        ]
    );
}

#[test]
fn minimize_reports_lines_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("moved.cu");
    std::fs::write(
        &f,
        "//--blockDim=64 --gridDim=1\n__global__ void moved(float *out)\n{\n    __shared__ float s[64];\n    int t = threadIdx.x;\n    s[t] = t * 2.0f;\n    for (int i = 0; i < 4; i++) {\n        out[64 * (i + 1) + t] = i;\n        __syncthreads();\n    }\n    out[t] = s[(t + 1) % 64];\n}\n",
    )
    .unwrap();
    let out = bin()
        .args(["fix", "--diff", "--minimize", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &v["files"][0]["kernels"][0];
    assert_eq!(k["barriers"][0]["line"], 10, "{k}");
    assert_eq!(k["barriers"][0]["original_line"], 11, "{k}");
    assert_eq!(k["minimized"]["removed_lines"], serde_json::json!([9]));
    assert!(k["stats"]["millis"].as_f64().unwrap() > 0.0, "{k}");
    let err = String::from_utf8(
        bin()
            .args(["fix", "--diff", "--minimize"])
            .arg(&f)
            .output()
            .unwrap()
            .stderr,
    )
    .unwrap();
    assert!(
        err.contains("moved.cu:10: would insert __syncthreads() (cost 1)"),
        "{err}"
    );
    assert!(!err.contains(":0:"), "{err}");
}

#[test]
fn help_groups_flags_and_shows_examples_and_exit_codes() {
    let (rc, out) = stdout_of(&["fix", "--help"]);
    assert_eq!(rc, 0);
    for part in [
        "What to do:",
        "Kernel input:",
        "Synthesis:",
        "Solver limits:",
        "Output and run:",
        "Examples:",
        "autosync fix --diff . | git apply --check",
        "Exit codes:",
        "3  not fixable by barriers",
    ] {
        assert!(out.contains(part), "`{part}` missing:\n{out}");
    }
    let (_, out) = stdout_of(&["check", "--help"]);
    assert!(
        out.contains("autosync: ignore[race]") && out.contains("4  inconclusive"),
        "{out}"
    );
}

/// One race a barrier fixes and one between blocks no barrier fixes: `fix` writes the barrier,
/// exits 3, and names the race that remains; `check` on the result still reports it.
#[test]
fn partial_fix_writes_what_barriers_fix_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("partial.cu");
    std::fs::write(
        &f,
        "__global__ void k(int *o) {\n  __shared__ int s[1025];\n  s[threadIdx.x] = 1;\n  o[threadIdx.x] = s[threadIdx.x + 1];\n}\n",
    )
    .unwrap();
    let assert = bin().arg("fix").arg(&f).assert().code(3);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("wrote the barriers that fix what barriers can; 1 race remains"),
        "{err}"
    );
    assert!(err.contains("threads of different blocks race on `o`"), "{err}");
    let after = std::fs::read_to_string(&f).unwrap();
    assert!(
        after.contains("  s[threadIdx.x] = 1;\n  __syncthreads();\n  o[threadIdx.x]"),
        "{after}"
    );
    let out = bin().arg("check").arg(&f).assert().code(1).get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("race (WAW) on `o` between blocks"), "{text}");
    assert!(!text.contains("on `s`"), "{text}");
}

/// The conflict queries of a check are spread over a fixed number of lanes, not over the
/// machine's cores: one thread and many give the same findings, witnesses included.
#[test]
fn verdicts_and_witnesses_do_not_depend_on_the_thread_count() {
    for file in [
        "corpus/precision/matmul_partial.cu",
        "corpus/precision/haar_levels_racy.cu",
    ] {
        let one = stdout_of(&["check", "-j", "1", "--format", "json", file]);
        let many = stdout_of(&["check", "-j", "4", "--format", "json", file]);
        assert_eq!(one.0, 1, "{file}: {}", one.1);
        assert!(one.1.contains("\"witness\""), "{file}: {}", one.1);
        // Only the timing differs between runs.
        let strip = |s: &str| {
            s.lines()
                .filter(|l| !l.contains("\"millis\""))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&one.1), strip(&many.1), "{file}");
    }
}

/// `check --stats` on an element-wise kernel (`arange_f32`'s shape), on a grid-stride loop
/// over bytes (`concat`'s shape) and on an index split into coordinates and rebuilt (`diag`'s
/// shape): clean, with every conflict query settled by the injectivity
/// test and none asked of the solver.
#[test]
fn check_stats_show_an_element_wise_kernel_asks_no_solver_query() {
    for (file, kernel) in [
        ("corpus/sdk/axpy_elementwise.cu", "axpy_elementwise"),
        ("corpus/stride/grid_bytes.cu", "join_planes"),
        ("corpus/stride/mixed_radix.cu", "swap_middle_axes"),
    ] {
        let (code, out) = crate::common::run(&["check", "--stats", "--no-cache"], std::path::Path::new(file));
        assert_eq!(code, 0, "{out}");
        let line = out
            .lines()
            .find(|l| l.contains(&format!("kernel `{kernel}`: sdv checker")))
            .unwrap_or_else(|| panic!("no stats line:\n{out}"));
        assert!(line.contains(": sdv checker, 0 solver queries, "), "{line}");
        let settled: u64 = line
            .split(" by injectivity")
            .next()
            .and_then(|s| s.rsplit('(').next())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(settled >= 4, "{line}");
    }
}

/// Read-only-path loads after the grid-dependency wait are warnings of their own rule, naming
/// the load and the wait; the load before the wait is not one, and the verdict stays clean.
#[test]
fn nc_loads_after_the_grid_dependency_wait_are_warned() {
    let out = bin()
        .args([
            "check",
            "--no-cache",
            "--format",
            "json",
            "corpus/launch/pdl_ldg_after_wait.cu",
        ])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let k = &v["kernels"][0];
    let warned: Vec<&serde_json::Value> = k["defects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "pdl-nc-load")
        .collect();
    assert_eq!(warned.len(), 2, "{k}");
    assert!(warned.iter().all(|d| d["severity"] == "warning"), "{k}");
    let lines: Vec<u64> = warned.iter().map(|d| d["primary"]["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [19, 9], "{k}");
    assert!(warned.iter().all(|d| d["related"][0]["line"] == 18), "{k}");
    let out = bin()
        .args(["check", "--no-cache", "corpus/launch/pdl_wait.cu"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("pdl-nc-load"), "{text}");
}

/// A kernel some thread of which traps whatever the data is an error (exit 1), never clean,
/// and `fix` writes nothing (exit 3); one that traps only on bad input is clean.
#[test]
fn a_kernel_that_always_traps_is_an_error_and_not_fixed() {
    let out = bin()
        .args(["check", "--no-cache", "corpus/cpp/arch_gated_trap.cu"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("error[always-traps]") && text.contains("as read for sm_80"),
        "{text}"
    );
    let (_dir, path) = copy_to_temp("cpp/arch_gated_trap.cu");
    let before = std::fs::read_to_string(&path).unwrap();
    bin().args(["fix", "--no-cache"]).arg(&path).assert().code(3);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    bin()
        .args([
            "check",
            "--no-cache",
            "--arch",
            "sm_90",
            "corpus/cpp/arch_gated_trap.cu",
        ])
        .assert()
        .code(0);
    bin()
        .args(["check", "--no-cache", "corpus/cpp/arch_gated_trap_guarded.cu"])
        .assert()
        .code(0);
}

/// The two async-proxy defects of a bulk-store epilogue have rules of their own: a write the
/// store reads with no `fence.proxy.async` of its thread between (naming the write, its thread
/// and the copy), and a source written again before the store's `wait_group.read`.
#[test]
fn bulk_store_defects_have_rules_of_their_own() {
    let json = |args: &[&str], code: i32| -> serde_json::Value {
        let out = bin()
            .args(["check", "--no-cache", "--format", "json", "--arch", "sm_90"])
            .args(args)
            .assert()
            .code(code)
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice(&out).unwrap()
    };
    let v = json(&["corpus/pipeline/bulk_store_no_fence.cu"], 1);
    let d = &v["kernels"][0]["defects"][0];
    assert_eq!(d["rule"], "missing-proxy-fence", "{v}");
    assert_eq!(d["primary"]["line"], 16, "{d}");
    assert_eq!(d["related"][0]["line"], 19, "{d}");
    let notes = d["notes"].to_string();
    assert!(notes.contains("thread 0 writes byte 0 of `tile`"), "{notes}");
    let v = json(&["corpus/pipeline/bulk_store_fenced.cu"], 0);
    assert_eq!(v["kernels"][0]["defects"], serde_json::json!([]), "{v}");
    let v = json(&["--param", "iters=4", "corpus/pipeline/bulk_store2_reuse.cu"], 1);
    let d = &v["kernels"][0]["defects"][0];
    assert_eq!(d["rule"], "store-source-reuse", "{v}");
    assert!(d["notes"].to_string().contains("wait_group.read"), "{d}");
}
