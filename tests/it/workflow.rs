//! Many files at once: `fix --diff corpus/` over the whole corpus (nothing written), the text
//! summary against the JSON of a second run, deterministic order under rayon, JSON and SARIF
//! shapes, colour and quiet.

use crate::common::{bin, snapshot};
use std::collections::BTreeMap;
use std::path::Path;

/// `summary: 83 files, 84 kernels, 34 races fixed, ...` → {"files": 83, "races fixed": 34, ...}
fn parse_summary(stderr: &str) -> BTreeMap<String, u64> {
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("summary: "))
        .expect("a summary line");
    line["summary: ".len()..]
        .split(", ")
        .map(|part| {
            let (n, what) = part.split_once(' ').unwrap();
            (what.trim_end_matches('s').to_string(), n.parse().unwrap())
        })
        .collect()
}

#[test]
fn whole_corpus_fix_summary_matches_json() {
    let before = snapshot(Path::new("corpus"));
    // The text and the JSON come from two runs, so nothing compared may depend on machine load.
    // Verdicts and placements do not: solver budgets are Z3 resource counts (the wall clock only
    // stops a query at 4x its budget). Witnesses and `millis` stats do, and are not compared. The
    // wall-clock kernel budget (60 s by default) is lifted far above any corpus kernel's time (at
    // most seconds) so a loaded machine cannot make a kernel inconclusive in one run only.
    // Every group but corpus/toolkit, whose kernels need the real toolkit and per-file options
    // (arch, CUTLASS's include directory) that tests/toolkit.rs and the manifest tests pass.
    let mut groups: Vec<String> = std::fs::read_dir("corpus")
        .unwrap()
        .map(|d| d.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("toolkit"))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    groups.sort();
    let fix = |format: &str| {
        bin()
            .args(["fix", "--diff", "--kernel-timeout", "3600", "--format", format])
            .args(&groups)
            .output()
            .unwrap()
    };
    let text = fix("text");
    let json = fix("json");
    assert_eq!(snapshot(Path::new("corpus")), before, "--diff must not write");
    let code = text.status.code().unwrap();
    assert_eq!(json.status.code(), Some(code));
    // The corpus holds unfixable and inconclusive kernels: inconclusive dominates.
    assert_eq!(code, 4);
    let s = parse_summary(&String::from_utf8(text.stderr).unwrap());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let js = &v["summary"];
    assert_eq!(v["version"], 1);
    assert_eq!(js["exit_code"], code);
    for (text_key, json_key) in [
        ("file", "files"),
        ("kernel", "kernels"),
        ("races fixed", "races_fixed"),
        ("barriers inserted", "barriers_inserted"),
        ("files changed", "files_changed"),
        ("unfixable", "unfixable"),
        ("inconclusive", "inconclusive"),
        ("error", "errors"),
    ] {
        assert_eq!(
            Some(s[text_key]),
            js[json_key].as_u64(),
            "{text_key} vs {json_key}: text {s:?}, JSON {js}"
        );
    }
    // The summary agrees with the per-kernel objects.
    let files = v["files"].as_array().unwrap();
    let cu_files = before
        .keys()
        .filter(|p| (p.ends_with(".cu") || p.ends_with(".cuh")) && !p.starts_with("corpus/toolkit/"))
        .count();
    assert_eq!(files.len(), cu_files);
    let kernels: Vec<&serde_json::Value> = files.iter().flat_map(|f| f["kernels"].as_array().unwrap()).collect();
    assert_eq!(kernels.len() as u64, s["kernel"]);
    let fixed: Vec<_> = kernels.iter().filter(|k| k["status"] == "fixed").collect();
    // A partial fix writes barriers too, and counts as unfixable (races remain).
    let partial: Vec<_> = kernels.iter().filter(|k| k["status"] == "partial").collect();
    assert!(!partial.is_empty(), "the corpus has partially fixable kernels");
    let barriers: usize = fixed
        .iter()
        .chain(&partial)
        .map(|k| k["barriers"].as_array().unwrap().len())
        .sum();
    assert_eq!(barriers as u64, s["barriers inserted"]);
    assert!(barriers > 20, "the corpus has many fixable kernels");
    let unfixable = kernels.iter().filter(|k| k["status"] == "unfixable").count() + partial.len();
    assert_eq!(unfixable as u64, s["unfixable"]);
    // Every fixed kernel's defects are located, and each barrier covers at least one of them.
    for k in &fixed {
        let defects = k["defects"].as_array().unwrap();
        assert!(!defects.is_empty(), "{k}");
        for b in k["barriers"].as_array().unwrap() {
            assert!(
                b["line"].as_u64().unwrap() > 0 && b["column"].as_u64().unwrap() > 0,
                "{b}"
            );
            assert!(b["kind"] == "syncthreads" || b["kind"] == "named", "{b}");
            assert!(!b["covers_defects"].as_array().unwrap().is_empty(), "{k}");
        }
    }
    // Sorted by file whatever the scheduling.
    let names: Vec<&str> = files.iter().map(|f| f["file"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn parallel_output_is_in_file_order() {
    // The solver's witnesses (and, under load, its timeouts) may differ between runs; the order
    // of files and kernels must not, whatever the number of threads.
    let heads = |jobs: &str| {
        let out = bin()
            .args(["check", "-j", jobs, "corpus/micro", "corpus/regress"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once(" checker)").map(|(h, _)| h.to_string()))
            .collect::<Vec<_>>()
    };
    let (one, two) = (heads("1"), heads("2"));
    assert_eq!(one, two);
    assert!(one.len() > 20, "{one:?}");
    let mut sorted = one.clone();
    sorted.sort_by_key(|h| h.split(':').next().unwrap().to_string());
    assert_eq!(one, sorted);
}

#[test]
fn check_json_has_located_defects_with_witnesses() {
    let out = bin()
        .args([
            "check",
            "--format",
            "json",
            "corpus/micro/straight_line.cu",
            "corpus/sdk/reduce_tree.cu",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["command"], "check");
    assert_eq!(v["summary"]["kernels"], 2);
    assert_eq!(v["summary"]["with_defects"], 1);
    let k = v["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kernel"] == "straight_line")
        .unwrap();
    assert_eq!(k["status"], "defects");
    let d = &k["defects"][0];
    assert_eq!(d["rule"], "race");
    assert_eq!(d["race_kind"], "WAR");
    assert_eq!(
        (d["primary"]["line"].as_u64(), d["primary"]["column"].as_u64()),
        (Some(9), Some(15))
    );
    assert_eq!(d["primary"]["label"], "read");
    assert_eq!(d["related"][0]["line"], 11);
    assert_eq!(d["related"][0]["label"], "write");
    assert_eq!(d["witness"]["threads"].as_array().unwrap().len(), 2);
}

#[test]
fn text_diagnostics_label_both_accesses() {
    let out = bin()
        .args(["check", "--color", "never", "corpus/micro/straight_line.cu"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // rustc's layout (annotate-snippets): the primary access `^`, the other one `-`.
    assert!(text.contains("error[race]: data race (WAR) on `a`"), "{text}");
    assert!(text.contains("  --> corpus/micro/straight_line.cu:9:15\n"), "{text}");
    assert!(text.contains(" 9 |     float x = a[t + 1];\n"), "{text}");
    assert!(text.contains("   |               ^^^^^^^^ read\n"), "{text}");
    assert!(text.contains("11 |     a[t] = x;\n"), "{text}");
    assert!(text.contains("   |     ---- write\n"), "{text}");
    assert!(text.contains("   = note: witness: thread "), "{text}");
    assert!(!text.contains('\x1b'), "no colour when asked for none");
    let out = bin()
        .args(["check", "--color", "always", "corpus/micro/straight_line.cu"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout).unwrap().contains("\x1b[91merror[race]"));
}

#[test]
fn quiet_and_verbose() {
    let q = bin().args(["check", "-q", "corpus/micro"]).output().unwrap();
    assert!(q.stderr.is_empty(), "{}", String::from_utf8_lossy(&q.stderr));
    let v = bin()
        .args(["check", "-v", "corpus/micro/straight_line.cu"])
        .output()
        .unwrap();
    let err = String::from_utf8(v.stderr).unwrap();
    assert!(err.contains("summary: 1 file") && err.contains("sdv checker"), "{err}");
    let f = bin()
        .args([
            "fix",
            "--diff",
            "corpus/micro/straight_line.cu",
            "corpus/micro/two_ifs.cu",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8(f.stderr).unwrap();
    assert!(err.contains("summary: 2 files"), "{err}");
}

#[test]
fn sarif_results_locations_and_fixes() {
    let out = bin()
        .args([
            "fix",
            "--diff",
            "--format",
            "sarif",
            "corpus/micro/straight_line.cu",
            "corpus/racy/same_statement.cu",
        ])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let results = run["results"].as_array().unwrap();
    let fixed = results
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "corpus/micro/straight_line.cu")
        .unwrap();
    assert_eq!(fixed["ruleId"], "race");
    assert_eq!(fixed["locations"][0]["physicalLocation"]["region"]["startLine"], 9);
    assert_eq!(
        fixed["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        11
    );
    let rep = &fixed["fixes"][0]["artifactChanges"][0]["replacements"][0];
    assert_eq!(rep["insertedContent"]["text"], "    __syncthreads();\n");
    assert_eq!(rep["deletedRegion"]["startLine"], rep["deletedRegion"]["endLine"]);
    // Applying the replacement gives the same text as `fix --stdout`.
    let orig = std::fs::read_to_string("corpus/micro/straight_line.cu").unwrap();
    let at = rep["deletedRegion"]["startLine"].as_u64().unwrap() as usize - 1;
    let mut lines: Vec<&str> = orig.split_inclusive('\n').collect();
    let ins = rep["insertedContent"]["text"].as_str().unwrap();
    lines.insert(at, ins);
    let patched = bin()
        .args(["fix", "--stdout", "corpus/micro/straight_line.cu"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(lines.concat(), String::from_utf8(patched).unwrap());
    // The unfixable kernel's races have no fixes, and its reasons are notifications.
    let unfixable: Vec<_> = results
        .iter()
        .filter(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "corpus/racy/same_statement.cu")
        .collect();
    assert!(!unfixable.is_empty() && unfixable.iter().all(|r| r.get("fixes").is_none()));
    let notes = run["invocations"][0]["toolExecutionNotifications"].as_array().unwrap();
    assert!(notes
        .iter()
        .any(|n| n["message"]["text"].as_str().unwrap().contains("unfixable")));
}

#[test]
fn sarif_fixes_go_to_the_results_they_remove_with_fingerprints_and_rule_help() {
    let out = bin()
        .args([
            "fix",
            "--diff",
            "--format",
            "sarif",
            "corpus/micro/two_races_two_barriers.cu",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &v["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    // Each race's fix inserts only the barrier that orders it: line 10 for `a`, 12 for `b`.
    for (r, line) in results.iter().zip([10, 12]) {
        let fixes = r["fixes"].as_array().unwrap();
        assert_eq!(fixes.len(), 1, "{r}");
        let reps = fixes[0]["artifactChanges"][0]["replacements"].as_array().unwrap();
        assert_eq!(reps.len(), 1, "{r}");
        assert_eq!(reps[0]["deletedRegion"]["startLine"], line, "{r}");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.starts_with("Data race (RAW) on `"), "description first: {text}");
        assert_eq!(
            r["partialFingerprints"]["autosyncFinding/v1"].as_str().unwrap().len(),
            16
        );
        let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(loc["uriBaseId"], "SRCROOT");
        assert_eq!(loc["uri"], "corpus/micro/two_races_two_barriers.cu");
    }
    assert_ne!(
        results[0]["partialFingerprints"], results[1]["partialFingerprints"],
        "distinct findings, distinct fingerprints"
    );
    assert!(run["originalUriBaseIds"]["SRCROOT"]["uri"]
        .as_str()
        .unwrap()
        .starts_with("file:///"));
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(!rule["fullDescription"]["text"].as_str().unwrap().is_empty(), "{rule}");
        assert!(!rule["help"]["text"].as_str().unwrap().is_empty(), "{rule}");
    }
    // Fingerprints do not move with line numbers: a line added above gives the same ones.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("corpus/micro/two_races_two_barriers.cu").unwrap();
    let shifted = dir.path().join("corpus/micro/two_races_two_barriers.cu");
    std::fs::create_dir_all(shifted.parent().unwrap()).unwrap();
    std::fs::write(&shifted, format!("// a new first line\n{text}")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args([
            "fix",
            "--diff",
            "--format",
            "sarif",
            "corpus/micro/two_races_two_barriers.cu",
        ])
        .output()
        .unwrap();
    let w: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let prints = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].clone())
            .collect()
    };
    assert_eq!(prints(&v), prints(&w));
}
