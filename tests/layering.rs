//! Imports run one way: cli → workflow → jobs → (front, synth, emit, output) → vocab in the
//! product crate; checkers → (report, tree, smt, print) → ir in the oracle; no cycles between
//! module files anywhere, and no `.rs` file outside the module trees.

use autosync_devtools::layering::{check, oracle, product};
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
