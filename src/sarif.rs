//! SARIF 2.1.0 output: one result per defect with its physical location, the other access of a
//! race as a related location, and (for `fix`) the verified barrier insertions as `fixes`.

use crate::results::{Defect, FileResult, Labeled, Location, Replacement, Severity};
use serde_json::{json, Value};

/// Rules autosync reports, with a one-line description each.
const RULES: &[(&str, &str)] = &[
    ("race", "Data race between threads of a block (or between blocks)"),
    (
        "benign-race",
        "Write-write race where every thread stores the same value (a defect only with --strict)",
    ),
    ("barrier-divergence", "Barrier under a thread-dependent condition"),
    ("deadlock", "Named barriers can wait forever"),
    (
        "count-mismatch",
        "Participants of a named barrier disagree on the thread count",
    ),
    (
        "too-many-participants",
        "More threads registered at a named barrier than its count",
    ),
    ("arrive-only", "A named-barrier generation completed by arrivals alone"),
    (
        "unsafe-recycling",
        "A named barrier is reused before its previous generation completed",
    ),
    ("bad-id", "Named barrier id outside 0..=15"),
    ("bad-count", "Named barrier thread count not a positive multiple of 32"),
    ("inconclusive", "The checker could not decide part of the kernel"),
];

/// Percent-encodes a path as a relative (or absolute-path) URI reference.
pub fn path_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::new();
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~/".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn region(l: &Location) -> Value {
    json!({
        "startLine": l.line,
        "startColumn": l.column,
        "endLine": l.end_line,
        "endColumn": l.end_column.max(if l.end_line == l.line { l.column } else { 1 }),
    })
}

fn physical(l: &Location) -> Value {
    json!({
        "artifactLocation": { "uri": path_uri(&l.file) },
        "region": region(l),
    })
}

fn related(id: usize, l: &Labeled) -> Value {
    json!({
        "id": id,
        "physicalLocation": physical(&l.location),
        "message": { "text": l.label },
    })
}

fn replacement(r: &Replacement) -> Value {
    json!({
        "deletedRegion": {
            "startLine": r.start_line,
            "startColumn": 1,
            "endLine": r.end_line,
            "endColumn": 1,
        },
        "insertedContent": { "text": r.inserted },
    })
}

fn result(d: &Defect, file: &FileResult, kernel: &str, fix: Option<&Value>) -> Value {
    let rule_index = RULES.iter().position(|(id, _)| *id == d.rule).unwrap_or(0);
    let mut r = json!({
        "ruleId": d.rule,
        "ruleIndex": rule_index,
        "level": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "message": { "text": d.message },
        "properties": {
            "kernel": kernel,
            "raceKind": d.race_kind,
            "array": d.array,
            "interBlock": d.inter_block,
            "witness": d.witness,
            "notes": d.notes,
        },
    });
    let loc = d
        .primary
        .as_ref()
        .map(|p| json!({ "physicalLocation": physical(&p.location), "message": { "text": p.label } }))
        .unwrap_or_else(|| json!({ "physicalLocation": { "artifactLocation": { "uri": path_uri(&file.file) } } }));
    r["locations"] = json!([loc]);
    if !d.related.is_empty() {
        r["relatedLocations"] = Value::Array(d.related.iter().enumerate().map(|(i, l)| related(i + 1, l)).collect());
    }
    if let Some(f) = fix {
        r["fixes"] = json!([f]);
    }
    r
}

/// The `fix` object for a file: all its verified insertions (they were verified together).
fn file_fix(f: &FileResult) -> Option<Value> {
    if f.replacements.is_empty() {
        return None;
    }
    let n: usize = f.kernels.iter().map(|k| k.barriers.len()).sum();
    Some(json!({
        "description": {
            "text": format!("Insert {n} barrier{} (verified race-free together)", if n == 1 { "" } else { "s" })
        },
        "artifactChanges": [{
            "artifactLocation": { "uri": path_uri(&f.file) },
            "replacements": f.replacements.iter().map(replacement).collect::<Vec<_>>(),
        }],
    }))
}

/// The whole SARIF log for a run.
pub fn log(files: &[FileResult], exit_code: u8) -> Value {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for f in files {
        let fix = file_fix(f);
        for k in &f.kernels {
            let kfix = if k.status == "fixed" { fix.as_ref() } else { None };
            for d in &k.defects {
                results.push(result(d, f, &k.kernel, kfix));
            }
            for reason in &k.reasons {
                notifications.push(json!({
                    "level": "warning",
                    "message": { "text": format!("kernel `{}` is {}: {reason}", k.kernel, k.status) },
                    "locations": [{ "physicalLocation": { "artifactLocation": { "uri": path_uri(&f.file) } } }],
                }));
            }
        }
        if let Some(e) = &f.error {
            let mut loc = json!({ "artifactLocation": { "uri": path_uri(&e.file) } });
            if let (Some(l), Some(c)) = (e.line, e.column) {
                loc["region"] = json!({ "startLine": l, "startColumn": c });
            }
            notifications.push(json!({
                "level": "error",
                "message": { "text": format!("{}: {}", e.kind, e.message) },
                "locations": [{ "physicalLocation": loc }],
            }));
        }
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "autosync",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": RULES.iter().map(|(id, text)| json!({
                    "id": id,
                    "shortDescription": { "text": text },
                })).collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "invocations": [{
                "executionSuccessful": exit_code != crate::cli::exit::INPUT,
                "exitCode": exit_code,
                "toolExecutionNotifications": notifications,
            }],
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded() {
        assert_eq!(path_uri("corpus/a b.cu"), "corpus/a%20b.cu");
        assert_eq!(path_uri("/tmp/x/k.cu"), "/tmp/x/k.cu");
    }
}
