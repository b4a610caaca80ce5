//! SARIF 2.1.0 output: one result per finding with its physical location, the other access of
//! a race as a related location, a stable `partialFingerprints` entry, suppressed findings with
//! `suppressions`, and (for `fix`) each verified barrier insertion as a fix on exactly the
//! results it orders. Paths are relative URIs against `%SRCROOT%` (the working directory).

use super::defect::{Defect, Labeled};
use super::results::{Barrier, FileResult, KernelResult, Replacement, Warning};
use crate::vocab::rules::RULES;
use crate::vocab::texts::Location;
use serde_json::{json, Value};

/// The base the relative URIs resolve against (the directory autosync ran in).
const SRCROOT: &str = "SRCROOT";

/// Rules for warnings about suppression comments (not findings in the code).
const META_RULES: &[(&str, &str, &str)] = &[
    (
        "unused-suppression",
        "A suppression comment that suppresses nothing",
        "Remove the comment: the finding it was written for is gone (or it names the wrong rule or line).",
    ),
    (
        "invalid-suppression",
        "A suppression comment autosync cannot read",
        "Write `// autosync: ignore[RULE, ...]` on a line of the finding, or `// autosync: ignore-kernel[RULE, ...]` above the kernel.",
    ),
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

/// An `artifactLocation`: relative to `%SRCROOT%` when the file is below the working directory,
/// else an absolute `file:` URI.
fn artifact(path: &str) -> Value {
    let rel = crate::vocab::paths::diff_path(std::path::Path::new(path));
    if rel.starts_with("..") || std::path::Path::new(path).is_absolute() && !under_cwd(path) {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.into());
        json!({ "uri": format!("file://{}", path_uri(&abs.display().to_string())) })
    } else {
        json!({ "uri": path_uri(&rel), "uriBaseId": SRCROOT })
    }
}

fn under_cwd(path: &str) -> bool {
    let (Ok(cwd), Ok(p)) = (std::env::current_dir(), std::fs::canonicalize(path)) else {
        return false;
    };
    p.starts_with(std::fs::canonicalize(&cwd).unwrap_or(cwd))
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
        "artifactLocation": artifact(&l.file),
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

/// The message as a sentence: capitalised, description first (the rule id is `ruleId`).
fn sentence(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Trimmed source lines by file, read once, for fingerprints.
#[derive(Default)]
struct Lines(std::collections::HashMap<String, Vec<String>>);

impl Lines {
    fn of(&mut self, l: &Location) -> String {
        let lines = self.0.entry(l.file.clone()).or_insert_with(|| {
            std::fs::read_to_string(&l.file)
                .map(|t| t.lines().map(|x| x.trim().to_string()).collect())
                .unwrap_or_default()
        });
        lines
            .get((l.line as usize).saturating_sub(1))
            .cloned()
            .unwrap_or_default()
    }
}

/// A fingerprint that survives edits elsewhere in the file: FNV-1a over the rule, kernel,
/// array and the trimmed source lines of the finding's locations (not their numbers).
fn fingerprint(d: &Defect, kernel: &str, lines: &mut Lines) -> String {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    let mut eat = |s: &str| {
        h.write(s.as_bytes());
        h.write_u8(0);
    };
    eat(&d.rule);
    eat(kernel);
    eat(d.array.as_deref().unwrap_or(""));
    eat(d.race_kind.as_deref().unwrap_or(""));
    for l in d.locations() {
        eat(&l.location.file);
        eat(&lines.of(&l.location));
        eat(&l.label);
    }
    format!("{:016x}", h.finish())
}

fn rule_index(id: &str) -> Option<usize> {
    RULES
        .iter()
        .map(|r| r.id)
        .chain(META_RULES.iter().map(|r| r.0))
        .position(|r| r == id)
}

fn result(d: &Defect, file: &FileResult, k: &KernelResult, fixes: Vec<Value>, lines: &mut Lines) -> Value {
    let mut r = json!({
        "ruleId": d.rule,
        "level": d.severity.word(),
        "message": { "text": sentence(&d.message) },
        "partialFingerprints": { "autosyncFinding/v1": fingerprint(d, &k.kernel, lines) },
        "properties": {
            "kernel": k.kernel,
            "raceKind": d.race_kind,
            "array": d.array,
            "writtenAs": d.written_as,
            "interBlock": d.inter_block,
            "reachedFrom": d.reached_from,
            "witness": d.witness,
            "notes": d.notes,
        },
    });
    if let Some(i) = rule_index(&d.rule) {
        r["ruleIndex"] = json!(i);
    }
    let loc = d
        .primary
        .as_ref()
        .map(|p| json!({ "physicalLocation": physical(&p.location), "message": { "text": p.label } }))
        .unwrap_or_else(|| json!({ "physicalLocation": { "artifactLocation": artifact(&file.file) } }));
    r["locations"] = json!([loc]);
    if !d.related.is_empty() {
        r["relatedLocations"] = Value::Array(d.related.iter().enumerate().map(|(i, l)| related(i + 1, l)).collect());
    }
    if !fixes.is_empty() {
        r["fixes"] = Value::Array(fixes);
    }
    if let Some(by) = &d.suppressed_by {
        let mut s = json!({
            "kind": if by.kind == "config" { "external" } else { "inSource" },
            "status": "accepted",
            "justification": by.reason.clone().unwrap_or_else(|| by.describe()),
        });
        if let Some(line) = by.line {
            s["location"] = json!({ "physicalLocation": {
                "artifactLocation": artifact(&by.file),
                "region": { "startLine": line },
            }});
        }
        r["suppressions"] = json!([s]);
    }
    r
}

/// The replacements of `f` that write barrier `b` (found by the patched line it lands on).
fn replacements_of<'a>(f: &'a FileResult, b: &Barrier) -> impl Iterator<Item = &'a Replacement> {
    let line = b.line;
    f.replacements
        .iter()
        .filter(move |r| r.new_start_line <= line && line < r.new_end_line)
}

/// The fix for defect `di` of kernel `k`: the insertions of the barriers that order it.
fn fix_for(f: &FileResult, k: &KernelResult, di: usize) -> Option<Value> {
    let barriers: Vec<&Barrier> = k.barriers.iter().filter(|b| b.covers_defects.contains(&di)).collect();
    if barriers.is_empty() {
        return None;
    }
    let mut reps: Vec<&Replacement> = Vec::new();
    for b in &barriers {
        for r in replacements_of(f, b) {
            if !reps.contains(&r) {
                reps.push(r);
            }
        }
    }
    if reps.is_empty() {
        return None;
    }
    let what: Vec<String> = barriers
        .iter()
        .map(|b| {
            format!(
                "`{}` before line {}",
                b.text.lines().next().unwrap_or_default(),
                b.original_line
            )
        })
        .collect();
    let total = k.barriers.len();
    Some(json!({
        "description": {
            "text": format!(
                "Insert {} (part of a placement of {total} barrier{} verified race-free together)",
                what.join(" and "),
                if total == 1 { "" } else { "s" }
            )
        },
        "artifactChanges": [{
            "artifactLocation": artifact(&f.file),
            "replacements": reps.into_iter().map(replacement).collect::<Vec<_>>(),
        }],
    }))
}

fn warning_result(w: &Warning) -> Value {
    json!({
        "ruleId": w.rule,
        "ruleIndex": rule_index(w.rule),
        "level": "warning",
        "message": { "text": sentence(&w.message) },
        "locations": [{ "physicalLocation": physical(&w.location) }],
    })
}

/// The whole SARIF log for a run.
pub fn log(files: &[FileResult], exit_code: u8) -> Value {
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    let mut lines = Lines::default();
    for f in files {
        for k in &f.kernels {
            for (di, d) in k.defects.iter().enumerate() {
                let fixes = if k.status == "fixed" {
                    fix_for(f, k, di).into_iter().collect()
                } else {
                    vec![]
                };
                results.push(result(d, f, k, fixes, &mut lines));
            }
            for d in &k.suppressed {
                results.push(result(d, f, k, vec![], &mut lines));
            }
            for reason in &k.reasons {
                notifications.push(json!({
                    "level": "warning",
                    "message": { "text": format!("Kernel `{}` is {}: {reason}", k.kernel, k.status) },
                    "locations": [{ "physicalLocation": { "artifactLocation": artifact(&f.file) } }],
                }));
            }
        }
        results.extend(f.warnings.iter().map(warning_result));
        if let Some(e) = &f.error {
            let mut loc = json!({ "artifactLocation": artifact(&e.file) });
            if let (Some(l), Some(c)) = (e.line, e.column) {
                loc["region"] = json!({ "startLine": l, "startColumn": c });
            }
            notifications.push(json!({
                "level": "error",
                "message": { "text": sentence(&format!("{}: {}", e.kind, e.message)) },
                "locations": [{ "physicalLocation": loc }],
            }));
        }
    }
    let cwd = std::env::current_dir()
        .map(|d| format!("file://{}/", path_uri(&d.display().to_string()).trim_end_matches('/')))
        .unwrap_or_else(|_| "file:///".into());
    let mut rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.short },
                "fullDescription": { "text": r.full },
                "help": { "text": r.help, "markdown": r.help },
                "defaultConfiguration": { "level": r.severity.word() },
            })
        })
        .collect();
    rules.extend(META_RULES.iter().map(|(id, short, help)| {
        json!({
            "id": id,
            "shortDescription": { "text": short },
            "fullDescription": { "text": short },
            "help": { "text": help, "markdown": help },
            "defaultConfiguration": { "level": "warning" },
        })
    }));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "autosync",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": { SRCROOT: { "uri": cwd } },
            "columnKind": "unicodeCodePoints",
            "results": results,
            "invocations": [{
                "executionSuccessful": exit_code != crate::vocab::exit::INPUT,
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

    #[test]
    fn relative_paths_get_the_base_id() {
        assert_eq!(
            artifact("corpus/micro/two_ifs.cu"),
            json!({ "uri": "corpus/micro/two_ifs.cu", "uriBaseId": "SRCROOT" })
        );
        assert_eq!(
            artifact("/nonexistent/k.cu"),
            json!({ "uri": "file:///nonexistent/k.cu" })
        );
    }
}
