//! Suppressions on the real binary: a comment on either access's line, a kernel-level comment,
//! autosync.yaml `ignore:` entries; suppressed findings are counted and listed (text, JSON,
//! SARIF), `fix` inserts no barrier for them, and a comment that suppresses nothing is a warning.

use crate::common::bin;
use std::path::{Path, PathBuf};

/// `corpus/<rel>` copied into a fresh directory with `edit` applied to its text.
fn edited(rel: &str, edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new("corpus").join(rel)).unwrap();
    let f = dir.path().join(Path::new(rel).file_name().unwrap());
    std::fs::write(&f, edit(&text)).unwrap();
    (dir, f)
}

/// Appends `comment` to the line containing `code`.
fn comment_on(code: &'static str, comment: &'static str) -> impl Fn(&str) -> String {
    move |t: &str| {
        assert!(t.contains(code), "{code} not in the kernel");
        t.replacen(code, &format!("{code} {comment}"), 1)
    }
}

fn output(args: &[&str], f: &Path) -> (i32, String, String) {
    let out = bin().args(args).arg(f).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn a_race_is_suppressed_from_either_access_line_and_fix_leaves_it() {
    // straight_line: read `a[t + 1]` on line 9, write `a[t]` on line 11.
    for code in ["float x = a[t + 1];", "a[t] = x;"] {
        let (_d, f) = edited(
            "micro/straight_line.cu",
            comment_on(code, "// autosync: ignore[race] neighbours are disjoint"),
        );
        let (rc, out, err) = output(&["check"], &f);
        assert_eq!(rc, 0, "{code}: {out}{err}");
        assert!(out.contains("clean (1 suppressed)"), "{out}");
        assert!(
            out.contains("note[race]: suppressed by `// autosync: ignore[race] neighbours are disjoint`"),
            "{out}"
        );
        assert!(err.contains("1 suppressed"), "the summary counts it: {err}");
        let before = std::fs::read_to_string(&f).unwrap();
        let (rc, out, err) = output(&["fix"], &f);
        assert_eq!(rc, 0, "{out}{err}");
        assert_eq!(
            std::fs::read_to_string(&f).unwrap(),
            before,
            "no barrier for a suppressed race"
        );
        let (rc, out, _) = output(&["fix", "--diff"], &f);
        assert_eq!((rc, out.as_str()), (0, ""));
    }
}

#[test]
fn fix_orders_the_races_that_are_not_suppressed() {
    // Two races: 9↔10 on `a` and 11↔12 on `b`; the first is suppressed.
    let (_d, f) = edited(
        "micro/two_races_two_barriers.cu",
        comment_on("a[t] = in[t];", "// autosync: ignore"),
    );
    let (rc, _, err) = output(&["fix"], &f);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("removes 1 race: 11↔12"), "{err}");
    let after = std::fs::read_to_string(&f).unwrap();
    assert_eq!(after.matches("__syncthreads();").count(), 1, "{after}");
    let (rc, out, _) = output(&["check", "--format", "json"], &f);
    assert_eq!(rc, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let k = &v["kernels"][0];
    assert_eq!(k["defects"].as_array().unwrap().len(), 0);
    let s = &k["suppressed"][0];
    assert_eq!(s["rule"], "race");
    assert_eq!(s["array"], "a");
    assert_eq!(s["suppressed_by"]["kind"], "comment");
    assert_eq!(s["suppressed_by"]["line"], 9);
    assert_eq!(v["summary"]["suppressed"], 1);
}

#[test]
fn an_unused_or_unreadable_suppression_is_a_warning() {
    let (_d, f) = edited("micro/straight_line.cu", |t| {
        let t = comment_on("a[t] = x;", "// autosync: ignore[race]")(t);
        let t = comment_on("int t = threadIdx.x;", "// autosync: ignore[race]")(&t);
        comment_on("out[g] = x;", "// autosync: ignore[rase]")(&t)
    });
    let (rc, out, _) = output(&["check"], &f);
    assert_eq!(rc, 0, "a warning does not fail the run: {out}");
    assert!(
        out.contains(
            "straight_line.cu:7:26: warning[unused-suppression]: `// autosync: ignore[race]` suppresses nothing"
        ),
        "{out}"
    );
    assert!(
        out.contains("warning[invalid-suppression]: unknown rule `rase`"),
        "{out}"
    );
    assert_eq!(
        out.matches("warning[unused-suppression]").count(),
        1,
        "the used one is not warned: {out}"
    );
    let (_, out, _) = output(&["check", "--format", "github"], &f);
    assert!(
        out.contains("::warning file=")
            && out.contains("line=7,col=26")
            && out.contains("title=autosync unused-suppression::"),
        "{out}"
    );
    let (_, out, _) = output(&["check", "--format", "json"], &f);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["unused-suppression", "invalid-suppression"]);
    assert_eq!(v["summary"]["warnings"], 2);
}

#[test]
fn kernel_comments_and_config_entries_suppress_by_kernel_path_and_rule() {
    let (_d, f) = edited("micro/straight_line.cu", |t| {
        t.replace(
            "__global__ void straight_line",
            "// autosync: ignore-kernel[race]\n__global__ void straight_line",
        )
    });
    let (rc, out, _) = output(&["check"], &f);
    assert_eq!(rc, 0, "{out}");
    assert!(
        out.contains("suppressed by `// autosync: ignore-kernel[race]`"),
        "{out}"
    );
    // The wrong rule suppresses nothing: the race stays and the comment is unused.
    let (_d2, g) = edited("micro/straight_line.cu", |t| {
        t.replace(
            "__global__ void straight_line",
            "// autosync: ignore-kernel[divergence]\n__global__ void straight_line",
        )
    });
    let (rc, out, _) = output(&["check"], &g);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("warning[unused-suppression]"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("legacy/k.cu");
    std::fs::create_dir_all(k.parent().unwrap()).unwrap();
    std::fs::copy("corpus/micro/straight_line.cu", &k).unwrap();
    let cfg = dir.path().join("autosync.yaml");
    std::fs::write(
        &cfg,
        "ignore:\n  - path: 'legacy/**'\n    rule: race\n    reason: 'reviewed in #12'\n",
    )
    .unwrap();
    let (rc, out, _) = output(&["check", "--format", "json"], &k);
    assert_eq!(rc, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let by = &v["kernels"][0]["suppressed"][0]["suppressed_by"];
    assert_eq!(by["kind"], "config");
    assert_eq!(by["reason"], "reviewed in #12");
    // By kernel name; another kernel name suppresses nothing.
    std::fs::write(&cfg, "ignore:\n  - kernel: other\n").unwrap();
    assert_eq!(output(&["check"], &k).0, 1);
    std::fs::write(&cfg, "ignore:\n  - kernel: straight_line\n    rules: [race]\n").unwrap();
    assert_eq!(output(&["check"], &k).0, 0);
    // A bad entry is a located config error.
    std::fs::write(&cfg, "ignore:\n  - kernel: straight_line\n    rule: rase\n").unwrap();
    let (rc, _, err) = output(&["check"], &k);
    assert_eq!(rc, 2);
    assert!(
        err.contains("autosync.yaml:2:3: error: ignore[0]: unknown rule `rase`"),
        "{err}"
    );
}

#[test]
fn sarif_lists_suppressed_results_with_their_suppression() {
    let (_d, f) = edited(
        "micro/straight_line.cu",
        comment_on("a[t] = x;", "// autosync: ignore[race]"),
    );
    let (rc, out, _) = output(&["check", "--format", "sarif"], &f);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "race");
    assert_eq!(r["suppressions"][0]["kind"], "inSource");
    assert_eq!(
        r["suppressions"][0]["location"]["physicalLocation"]["region"]["startLine"],
        11
    );
}
