//! Safe writes: `fix` replaces a file atomically (temp file + fsync + rename), keeps its
//! permissions and line endings, can keep a backup, refuses to overwrite a file that changed on
//! disk since it was read, and an interrupted write leaves the original intact.

use crate::common::run;
use autosync::emit::{write_atomic, write_atomic_failing, FailPoint};
use autosync::front::FrontOptions;
use autosync::jobs::fix::{fix_file, write_back_with, FixOptions};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const RACY: &str = "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n";

/// Files in `dir` other than the named ones (leftover temporaries).
fn strays(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn fix_keeps_permissions_and_crlf_line_endings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crlf.cu");
    std::fs::write(&path, RACY.replace('\n', "\r\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, err) = run(&["fix"], &path);
    assert_eq!(code, 0, "{err}");
    let out = std::fs::read_to_string(&path).unwrap();
    assert!(out.contains("__syncthreads();\r\n"), "{out:?}");
    assert_eq!(
        out.matches('\n').count(),
        out.matches("\r\n").count(),
        "a bare LF crept in: {out:?}"
    );
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(strays(dir.path(), &["crlf.cu"]), Vec::<String>::new());
}

#[test]
fn fix_backup_keeps_the_original_next_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cu");
    std::fs::write(&path, RACY).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (code, err) = run(&["fix", "--backup"], &path);
    assert_eq!(code, 0, "{err}");
    let orig = dir.path().join("k.cu.orig");
    assert_eq!(std::fs::read_to_string(&orig).unwrap(), RACY);
    assert_eq!(std::fs::metadata(&orig).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&path).unwrap().contains("__syncthreads();"));
    // Nothing to change: no backup is written.
    std::fs::remove_file(&orig).unwrap();
    let (code, err) = run(&["fix", "--backup"], &path);
    assert_eq!(code, 0, "{err}");
    assert!(!orig.exists());
}

#[test]
fn an_interrupted_write_leaves_the_original_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cu");
    std::fs::write(&path, RACY).unwrap();
    for at in [FailPoint::MidWrite, FailPoint::BeforeRename] {
        let e = write_atomic_failing(&path, "replacement text\n", at).unwrap_err();
        assert!(e.to_string().contains("injected"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), RACY, "{at:?}");
        assert_eq!(
            strays(dir.path(), &["k.cu"]),
            Vec::<String>::new(),
            "{at:?} left a temp file"
        );
    }
    write_atomic(&path, "replacement text\n").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "replacement text\n");
}

#[test]
fn a_write_into_a_read_only_directory_fails_and_keeps_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("ro");
    std::fs::create_dir(&sub).unwrap();
    let path = sub.join("k.cu");
    std::fs::write(&path, RACY).unwrap();
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores directory permissions; then there is nothing to test here.
    let probe = sub.join("probe");
    if std::fs::write(&probe, "").is_ok() {
        std::fs::remove_file(&probe).unwrap();
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
        return;
    }
    let (code, err) = run(&["fix"], &path);
    std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), RACY);
}

#[test]
fn write_back_refuses_a_file_changed_on_disk_after_it_was_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.cu");
    std::fs::write(&path, RACY).unwrap();
    let opts = FixOptions::default();
    let res = fix_file(&path, &FrontOptions::default(), &opts).unwrap();
    assert!(res.changed);
    let edited = RACY.replace("= 1;", "= 2;");
    std::fs::write(&path, &edited).unwrap();
    let e = write_back_with(&path, &res, true).unwrap_err();
    assert!(e.contains("changed on disk while autosync ran; nothing written"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), edited);
    assert!(
        !dir.path().join("k.cu.orig").exists(),
        "no backup when nothing is written"
    );
    // Unchanged on disk: the write goes through.
    std::fs::write(&path, RACY).unwrap();
    write_back_with(&path, &res, false).unwrap();
    assert!(std::fs::read_to_string(&path).unwrap().contains("__syncthreads();"));
}
