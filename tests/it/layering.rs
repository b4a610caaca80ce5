//! Code structure, read from the sources. Imports run one way: cli → server → workflow → jobs → (front, synth, emit, output) → (vocab, cache) in the
//! product crate; checkers → (report, tree, smt, bv_eval, print) → ir in the oracle; no cycles between
//! module files anywhere, and no `.rs` file outside the module trees.

use autosync_devtools::layering::{check, oracle, product};
use autosync_devtools::lengths::functions;
use std::path::Path;

#[test]
fn product_crate_imports_run_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let v = check(&root, &product(), &["main.rs"]);
    assert!(v.is_empty(), "layering of src/:\n{}", v.join("\n"));
}

#[test]
fn oracle_crate_imports_run_one_way() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/src/lib.rs");
    let v = check(&root, &oracle(), &[]);
    assert!(v.is_empty(), "layering of oracle/src/:\n{}", v.join("\n"));
}

/// Longest function allowed outside tests: a function should be readable in one screen or two.
const MAX_FN_LINES: usize = 150;

#[test]
fn no_function_is_longer_than_the_limit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    for root in ["src/lib.rs", "oracle/src/lib.rs"] {
        long.extend(
            functions(&dir.join(root))
                .into_iter()
                .filter(|f| f.lines > MAX_FN_LINES),
        );
    }
    let list: Vec<String> = long
        .iter()
        .map(|f| format!("{} {} ({} lines)", f.at, f.name, f.lines))
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines:\n{}",
        list.join("\n")
    );
}

/// ARCHITECTURE.md is the map: it names every module file, says how many crates there are and
/// names each, and lists every benchmark.
#[test]
fn architecture_document_matches_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wrong = autosync_devtools::architecture::mismatches(root);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Longest module file allowed under `src/` and `oracle/src/`, and longest `mod.rs` (a `mod.rs`
/// declares, re-exports and orchestrates; logic lives in named modules).
const MAX_FILE_LINES: usize = 1000;
const MAX_MOD_RS_LINES: usize = 300;

#[test]
fn no_module_file_is_longer_than_the_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut long = Vec::new();
    let mut dirs = vec![root.join("src"), root.join("oracle/src")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("source folder").flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let lines = std::fs::read_to_string(&p).expect("source file").lines().count();
            let limit = if p.ends_with("mod.rs") {
                MAX_MOD_RS_LINES
            } else {
                MAX_FILE_LINES
            };
            if lines > limit {
                long.push(format!(
                    "{} ({lines} lines, limit {limit})",
                    p.strip_prefix(root).unwrap_or(&p).display()
                ));
            }
        }
    }
    long.sort();
    assert!(long.is_empty(), "files over the limit:\n{}", long.join("\n"));
}
