//! Reading with the real CUDA toolkit (the tests' toolkit, `.ci/cuda-venv.sh`): the
//! environment autosync reads with is named in `--verbose` and JSON, a Clang that cannot read
//! the toolkit gets a message naming the package to install, and `--cuda-shim` still reads
//! the built-in declarations.

mod common;

use autosync_devtools::toolkit::{for_test, TestToolkit};
use common::bin;
use std::path::Path;

const KERNEL: &str = "corpus/micro/two_races_two_barriers.cu";

fn toolkit(what: &str) -> Option<TestToolkit> {
    for_test(what)
}

#[test]
fn verbose_and_json_name_clang_toolkit_and_arch() {
    let Some(tk) = toolkit("verbose_and_json_name_clang_toolkit_and_arch") else {
        return;
    };
    let cuda = tk.cuda.to_str().unwrap();
    let out = bin()
        .args(["check", "--verbose", "--cuda-path", cuda, "--arch", "sm_90", KERNEL])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("read with "), "{err}");
    assert!(err.contains("(Clang "), "{err}");
    assert!(err.contains("CUDA 12.9"), "{err}");
    assert!(err.contains("sm_90"), "{err}");
    let out = bin()
        .args(["check", "--format", "json", "--cuda-path", cuda, KERNEL])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let env = &v["kernels"][0]["environment"];
    assert_eq!(env["arch"], "sm_80", "{env}");
    assert!(env["clang_version"].as_u64().is_some_and(|c| c >= 17), "{env}");
    assert!(env["cuda"]["version"].as_str().is_some_and(|s| s.starts_with("12.9")), "{env}");
}

#[test]
fn the_shim_is_named_when_forced() {
    let out = bin()
        .args(["check", "--format", "json", "--cuda-shim", KERNEL])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let env = &v["kernels"][0]["environment"];
    assert!(env["cuda"].is_null(), "the shim has no toolkit: {env}");
    assert!(env["clang"].as_str().is_some(), "{env}");
}

/// A Clang that refuses the toolkit's headers (as Clang 14 refuses CUDA 12.9): exit 2, the
/// reason, and the Debian package that reads it.
#[test]
fn a_clang_that_cannot_read_the_toolkit_names_the_package() {
    let Some(tk) = toolkit("a_clang_that_cannot_read_the_toolkit_names_the_package") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("clang");
    std::fs::write(
        &fake,
        "#!/bin/sh\ncase \"$*\" in *--version*) echo 'clang version 14.0.6'; exit 0;; esac\n\
         echo \"error: no template named 'texture'\" >&2\nexit 1\n",
    )
    .unwrap();
    make_executable(&fake);
    let out = bin()
        .args(["check", "--clang"])
        .arg(&fake)
        .arg("--cuda-path")
        .arg(&tk.cuda)
        .arg(KERNEL)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no Clang here reads the CUDA 12.9"), "{err}");
    assert!(err.contains("no template named 'texture'"), "{err}");
    assert!(err.contains("apt-get install clang-19"), "{err}");
    assert!(err.contains("--cuda-shim"), "{err}");
}

#[cfg(unix)]
fn make_executable(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}
