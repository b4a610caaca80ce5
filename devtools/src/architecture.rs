//! What `ARCHITECTURE.md` claims about the code, checked against the code: it names every
//! module file of the crates, says how many crates the workspace has and names each, and lists
//! every benchmark.

use std::path::{Path, PathBuf};

/// Every claim of the architecture document that the code contradicts, one line each.
pub fn mismatches(root: &Path) -> Vec<String> {
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap_or_default();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let mut out = Vec::new();
    out.extend(unnamed_modules(root, &doc));
    out.extend(crate_claims(root, &doc, &manifest));
    out.extend(unlisted_benches(root, &doc, &manifest));
    out
}

/// Module files the document does not name: `foo.rs` by its file name (or its folder `foo/`
/// when it has child modules), `foo/mod.rs` by its folder, a binary `bin/foo.rs` by its name
/// (`foo`). Test modules (`tests.rs`, `tests_*.rs`, `testkit.rs`) are not part of the map.
fn unnamed_modules(root: &Path, doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["src", "oracle/src", "devtools/src"] {
        for f in rust_files(&root.join(dir)) {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if matches!(name, "lib.rs" | "main.rs") || name.starts_with("test") {
                continue;
            }
            let stem = name.trim_end_matches(".rs");
            let folder = f
                .parent()
                .and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let named = if name == "mod.rs" {
                doc.contains(&format!("`{folder}/")) || doc.contains(&format!("`{folder}`"))
            } else if folder == "bin" {
                doc.contains(&format!("`{stem}`"))
            } else {
                doc.contains(&format!("`{name}`"))
                    || doc.contains(&format!("{name}`"))
                    || doc.contains(&format!("/{name}"))
                    || (f.with_extension("").is_dir() && doc.contains(&format!("`{stem}/")))
            };
            if !named {
                let rel = f.strip_prefix(root).unwrap_or(&f);
                out.push(format!("ARCHITECTURE.md does not name the module {}", rel.display()));
            }
        }
    }
    out
}

/// The crate count the document states ("a Cargo workspace with three crates") and each crate's
/// package name.
fn crate_claims(root: &Path, doc: &str, manifest: &str) -> Vec<String> {
    let members = workspace_members(manifest);
    let mut out = Vec::new();
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    let said = doc
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .find(|w| w[1].trim_end_matches(['.', ',', ':']) == "crates")
        .and_then(|w| words.iter().position(|x| *x == w[0]));
    if said != Some(members.len()) {
        out.push(format!(
            "ARCHITECTURE.md should say the workspace has {} crates (it says {:?})",
            members.len(),
            said.map(|i| words[i])
        ));
    }
    for m in members {
        let toml = std::fs::read_to_string(root.join(&m).join("Cargo.toml")).unwrap_or_default();
        let name = package_name(&toml).unwrap_or(m.clone());
        if !doc.contains(&format!("`{name}`")) {
            out.push(format!("ARCHITECTURE.md does not name the crate `{name}`"));
        }
    }
    out
}

/// Benchmarks (`[[bench]]` targets and the scripts in `benches/`) the document does not list.
fn unlisted_benches(root: &Path, doc: &str, manifest: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut in_bench = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_bench = t == "[[bench]]";
        } else if in_bench {
            if let Some(v) = t.strip_prefix("name").map(|r| r.trim_start_matches([' ', '='])) {
                names.push(v.trim().trim_matches('"').to_string());
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(root.join("benches")) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            if n.ends_with(".py") {
                names.push(n);
            }
        }
    }
    names.sort();
    names
        .into_iter()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .map(|n| format!("ARCHITECTURE.md does not list the benchmark `{n}`"))
        .collect()
}

/// The workspace's member folders (`.` for the root package).
fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(start) = manifest.find("members") else {
        return Vec::new();
    };
    let list = &manifest[start..];
    let list = &list[list.find('[').map_or(0, |i| i + 1)..list.find(']').unwrap_or(list.len())];
    list.split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn package_name(toml: &str) -> Option<String> {
    let pkg = &toml[toml.find("[package]")?..];
    let line = pkg.lines().find(|l| l.trim_start().starts_with("name"))?;
    Some(line.split('=').nth(1)?.trim().trim_matches('"').to_string())
}

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_members_and_bench_names() {
        let m = "[workspace]\nmembers = [\".\", \"oracle\", \"devtools\"]\n[[bench]]\nname = \"a\"\nharness = false\n";
        assert_eq!(workspace_members(m), vec![".", "oracle", "devtools"]);
        assert_eq!(package_name("[package]\nname = \"x-y\"\n").as_deref(), Some("x-y"));
    }
}
