//! Applying edits, the unified diff and the atomic write.

use super::tests::*;
use super::*;
use autosync_oracle::tree::Position;

#[test]
fn apply_skips_invalid_edits() {
    let fix = Fix {
        edits: vec![
            Edit::text(1, 1, "X".into()),
            Edit::text(1, 0, "overlap".into()),
            Edit::text(99, 0, "out of range".into()),
        ],
    };
    assert_eq!(apply("abc", &fix), "aXc");
}

#[test]
fn diff_has_headers_and_context() {
    let k = lower(SIMPLE);
    let l = stmt(&k, SIMPLE, "s[t] = in[t]");
    let out = fixed(&k, SIMPLE, &[sync(Position::After(l))]);
    let d = unified_diff(std::path::Path::new("k.cu"), SIMPLE, &out);
    assert!(d.starts_with("--- a/k.cu\n+++ b/k.cu\n@@ "), "{d}");
    assert!(d.contains("\n+    __syncthreads();\n"));
    assert_eq!(unified_diff(std::path::Path::new("k.cu"), SIMPLE, SIMPLE), "");
}

#[cfg(unix)]
#[test]
fn write_atomic_keeps_permissions_and_links() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.cu");
    std::fs::write(&p, "old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
    write_atomic(&p, "new text").unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new text");
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
    let link = dir.path().join("link.cu");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    write_atomic(&link, "via link").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "via link");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    assert!(write_atomic(&dir.path().join("missing/k.cu"), "x").is_err());
}
