//! Code structure, read from the sources. Imports run one way: cli → workflow → jobs → (front, synth, emit, output) → vocab in the
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
