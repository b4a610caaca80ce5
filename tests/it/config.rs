//! autosync.yaml: discovery by walking up, precedence (CLI > file > header > __launch_bounds__),
//! excludes, cost constants, and every error case located at file:line:col.

use crate::common::bin;
use std::path::{Path, PathBuf};

const WITH_HEADER: &str = "//--blockDim=64 --gridDim=2\n__global__ void k(float *a, int n)\n{\n    __shared__ float s[1024];\n    s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];\n    __syncthreads();\n    a[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];\n}\n";

const WITH_BOUNDS: &str =
    "__global__ void __launch_bounds__(128) k(float *a)\n{\n    a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;\n}\n";

/// A project directory with `autosync.yaml` at the top and a kernel two levels down.
fn project(config: &str, kernel: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("autosync.yaml"), config).unwrap();
    let sub = dir.path().join("src/kernels");
    std::fs::create_dir_all(&sub).unwrap();
    let f = sub.join("k.cu");
    std::fs::write(&f, kernel).unwrap();
    (dir, f)
}

/// The launch config `autosync ir` resolved for the first kernel.
fn launch(f: &Path, extra: &[&str]) -> serde_json::Value {
    let out = bin()
        .args(["ir", "--format", "json"])
        .args(extra)
        .arg(f)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v[0]["launch"].clone()
}

#[test]
fn precedence_cli_over_file_over_header() {
    let (_d, f) = project(
        "kernels:\n  - name: k\n    block_dim: 32\n    params: {n: 7}\n",
        WITH_HEADER,
    );
    // File over header.
    let l = launch(&f, &[]);
    assert_eq!(l["block_dim"], serde_json::json!([32, 1, 1]));
    assert_eq!(
        l["grid_dim"],
        serde_json::json!([2, 1, 1]),
        "the header still gives gridDim"
    );
    assert_eq!(l["params"]["n"], 7);
    // CLI over file.
    let l = launch(&f, &["--block-dim", "16", "--param", "n=9"]);
    assert_eq!(l["block_dim"], serde_json::json!([16, 1, 1]));
    assert_eq!(l["params"]["n"], 9);
    // Without the file: the header.
    let l = launch(&f, &["--no-config"]);
    assert_eq!(l["block_dim"], serde_json::json!([64, 1, 1]));
}

#[test]
fn header_over_launch_bounds_and_file_over_launch_bounds() {
    let (_d, f) = project(
        "kernels:\n  - path: 'src/**/*.cu'\n    block_dim: [8, 8]\n",
        WITH_BOUNDS,
    );
    assert_eq!(launch(&f, &[])["block_dim"], serde_json::json!([8, 8, 1]));
    assert_eq!(
        launch(&f, &["--no-config"])["block_dim"],
        serde_json::json!([128, 1, 1])
    );
    let headed = format!("//--blockDim=96\n{WITH_BOUNDS}");
    std::fs::write(&f, headed).unwrap();
    assert_eq!(launch(&f, &["--no-config"])["block_dim"], serde_json::json!([96, 1, 1]));
    assert_eq!(launch(&f, &[])["block_dim"], serde_json::json!([8, 8, 1]));
}

#[test]
fn entries_match_by_name_and_glob_and_later_entries_win() {
    let cfg = "kernels:\n  - path: 'other/*.cu'\n    block_dim: 4\n  - path: 'src/kernels/*.cu'\n    block_dim: 8\n    grid_dim: 3\n  - name: k\n    block_dim: 16\n  - name: not_k\n    block_dim: 2\n";
    let (_d, f) = project(cfg, WITH_HEADER);
    let l = launch(&f, &[]);
    assert_eq!(l["block_dim"], serde_json::json!([16, 1, 1]));
    assert_eq!(l["grid_dim"], serde_json::json!([3, 1, 1]));
}

#[test]
fn explicit_config_flag_and_include_dirs_and_defines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("inc")).unwrap();
    std::fs::write(dir.path().join("inc/size.h"), "#define TILE 32\n").unwrap();
    let cfg = dir.path().join("elsewhere.yaml");
    std::fs::write(&cfg, "include_dirs: [inc]\ndefines: {SHIFT: 1}\n").unwrap();
    let f = dir.path().join("k.cu");
    std::fs::write(
        &f,
        "//--blockDim=32\n#include \"size.h\"\n__global__ void k(float *a)\n{\n    __shared__ float s[TILE + SHIFT];\n    s[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];\n    __syncthreads();\n    a[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x + SHIFT];\n}\n",
    )
    .unwrap();
    bin().arg("check").arg("--config").arg(&cfg).arg(&f).assert().code(0);
    // Without the config the include is not found and SHIFT is unknown.
    let code = bin().arg("check").arg(&f).output().unwrap().status.code();
    assert_ne!(code, Some(0));
}

#[test]
fn cost_constants_from_file_and_cli_wins() {
    let src = std::fs::read_to_string("corpus/micro/loop_intra.cu").unwrap();
    let (_d, f) = project(
        "cost: {loop: 10}\nkernels:\n  - name: loop_intra\n    params: {n: 4}\n",
        &src,
    );
    let cost = |extra: &[&str]| {
        let out = bin()
            .args(["fix", "--diff", "--format", "json"])
            .args(extra)
            .arg(&f)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["files"][0]["kernels"][0]["cost"].as_f64().unwrap()
    };
    assert_eq!(cost(&[]), 10.0);
    assert_eq!(cost(&["--cost-loop", "50"]), 50.0);
}

#[test]
fn excludes_apply_to_directories_and_named_files() {
    let (d, f) = project(
        "exclude: ['src/kernels/**']\n",
        &std::fs::read_to_string("corpus/micro/straight_line.cu").unwrap(),
    );
    std::fs::write(
        d.path().join("src/ok.cu"),
        "//--blockDim=32\n__global__ void ok(float *a)\n{\n    a[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;\n}\n",
    )
    .unwrap();
    // The racy kernel is excluded: the directory run is clean.
    let out = bin()
        .arg("check")
        .arg(d.path())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("kernel `ok`") && !text.contains("straight_line"),
        "{text}"
    );
    // Named explicitly (as pre-commit does) it is skipped too.
    bin().arg("check").arg(&f).assert().code(0);
    bin().args(["check", "--no-config"]).arg(&f).assert().code(1);
}

/// Writes `config`, runs `check`, and returns stderr (asserting exit 2).
fn config_error(config: &str) -> String {
    let (_d, f) = project(config, WITH_HEADER);
    let out = bin().arg("check").arg(&f).assert().code(2).get_output().stderr.clone();
    String::from_utf8(out).unwrap()
}

#[track_caller]
fn assert_located(config: &str, line: usize, needle: &str) {
    let err = config_error(config);
    let want = format!("autosync.yaml:{line}:");
    assert!(err.contains(&want), "expected {want} in: {err}");
    assert!(
        err.contains("error:") && err.contains(needle),
        "expected `{needle}` in: {err}"
    );
}

#[test]
fn every_config_error_is_located() {
    assert_located("bogus: 1\n", 1, "unknown field `bogus`");
    assert_located(
        "kernels:\n  - name: k\n    blockdim: 32\n",
        3,
        "unknown field `blockdim`",
    );
    assert_located("cost:\n  loops: 3\n", 2, "unknown field `loops`");
    assert_located(
        "kernels:\n  - name: k\n    block_dim: 0\n",
        3,
        "dimension 0 must be between 1",
    );
    assert_located(
        "kernels:\n  - name: k\n    block_dim: [1, 2, 3, 4]\n",
        3,
        "at most 3 components",
    );
    assert_located("kernels:\n  - name: k\n    grid_dim: 'x'\n", 3, "is not a dimension");
    assert_located("kernels:\n  - name: k\n    block_dim: [64, 32]\n", 2, "2048 threads");
    assert_located("kernels:\n  - block_dim: 32\n", 2, "needs a `name` or a `path`");
    assert_located("kernels:\n  - name: k\n    params: {n: many}\n", 3, "invalid type");
    assert_located("cost:\n  loop: 0.5\n", 2, "cost.loop must be a number >= 1");
    assert_located("cost:\n  if: 0\n", 2, "cost.if must be a number > 0");
    assert_located("reserved_ids: [1, 16]\n", 1, "outside 0..=15");
    assert_located("named_style: fancy\n", 1, "unknown variant `fancy`");
    assert_located("exclude: ['a/[b']\n", 1, "bad glob");
    assert_located("kernels:\n  - path: '{a'\n", 2, "bad glob");
    assert_located("include_dirs: 5\n", 1, "invalid type");
    assert_located("defines: {A: [1]}\n", 1, "invalid type");
    assert_located("kernels: [\n", 2, "");
    assert_located("kernels:\n  - name: k\n   block_dim: 4\n", 3, "");
}

#[test]
fn config_errors_are_reported_once_and_stop_only_their_files() {
    let (d, _f) = project("bogus: 1\n", WITH_HEADER);
    std::fs::write(d.path().join("src/kernels/k2.cu"), WITH_HEADER).unwrap();
    let out = bin()
        .arg("check")
        .arg(d.path())
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(err.matches("unknown field `bogus`").count(), 1, "{err}");
}

#[test]
fn empty_config_is_valid() {
    let (_d, f) = project("# nothing yet\n", WITH_HEADER);
    bin().arg("check").arg(&f).assert().code(0);
}
