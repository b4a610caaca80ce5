//! The real CUDA toolkit the tests read kernels with: `AUTOSYNC_TEST_CUDA` (a toolkit root, or a
//! site-packages directory holding the NVIDIA wheels), else the virtualenv `.ci/cuda-venv.sh`
//! makes under `target/cuda-venv`. CI sets `AUTOSYNC_REQUIRE_TOOLKIT`: there, a missing
//! toolkit fails the toolkit tier instead of skipping it.

use std::path::{Path, PathBuf};

/// A toolkit for the tests, and the CUTLASS headers next to it when installed.
#[derive(Clone, Debug)]
pub struct TestToolkit {
    /// What `--cuda-path` gets.
    pub cuda: PathBuf,
    /// CUTLASS's include directory (`nvidia-cutlass` ships it under `cutlass_library/source/include`).
    pub cutlass_include: Option<PathBuf>,
}

/// The toolkit, if one is installed for the tests.
pub fn find() -> Option<TestToolkit> {
    let site = match std::env::var_os("AUTOSYNC_TEST_CUDA").filter(|v| !v.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => venv_site(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/cuda-venv"))?,
    };
    let has_root = site.join("include/cuda_runtime.h").is_file();
    let has_wheels = site.join("nvidia/cuda_runtime/include/cuda_runtime.h").is_file();
    if !has_root && !has_wheels {
        return None;
    }
    let cutlass = site.join("cutlass_library/source/include");
    Some(TestToolkit {
        cutlass_include: cutlass.join("cutlass").is_dir().then_some(cutlass),
        cuda: site,
    })
}

/// Whether this run must have the toolkit (CI).
pub fn required() -> bool {
    std::env::var_os("AUTOSYNC_REQUIRE_TOOLKIT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The toolkit for a test of `what`: None (the caller skips, saying so) when none is installed,
/// a panic when the run requires one.
pub fn for_test(what: &str) -> Option<TestToolkit> {
    match find() {
        Some(t) => Some(t),
        None if required() => panic!(
            "{what}: no CUDA toolkit for the tests (run .ci/cuda-venv.sh, or set AUTOSYNC_TEST_CUDA), \
             and AUTOSYNC_REQUIRE_TOOLKIT is set"
        ),
        None => {
            eprintln!("{what}: skipped: no CUDA toolkit for the tests (run .ci/cuda-venv.sh)");
            None
        }
    }
}

/// `VENV/lib/python3.X/site-packages`.
fn venv_site(venv: &Path) -> Option<PathBuf> {
    let rd = std::fs::read_dir(venv.join("lib")).ok()?;
    let mut sites: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    sites.sort();
    sites.pop()
}
