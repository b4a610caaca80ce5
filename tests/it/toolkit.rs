//! Reading with the real CUDA toolkit (the tests' toolkit, `.ci/cuda-venv.sh`): the
//! environment autosync reads with is named in `--verbose` and JSON, a Clang that cannot read
//! the toolkit gets a message naming the package to install, and `--cuda-shim` still reads
//! the built-in declarations.

use crate::common::bin;
use autosync_devtools::toolkit::{for_test, TestToolkit};
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
    assert!(
        env["cuda"]["version"].as_str().is_some_and(|s| s.starts_with("12.9")),
        "{env}"
    );
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

/// `fix --diff` with the tests' toolkit: (exit code, stdout).
fn fix_diff(tk: &TestToolkit, extra: &[&str], file: &str) -> (i32, String) {
    let out = bin()
        .args(["fix", "--diff", "--cuda-path"])
        .arg(&tk.cuda)
        .args(extra)
        .arg(file)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Two CUB collectives reusing one temp storage without the barrier CUB documents: one
/// `__syncthreads()` between them, written in the user's file (never into CUB's headers).
#[test]
fn cub_reuse_race_is_fixed_with_one_barrier_in_user_code() {
    let Some(tk) = toolkit("cub_reuse_race_is_fixed_with_one_barrier_in_user_code") else {
        return;
    };
    let (code, diff) = fix_diff(&tk, &[], "corpus/toolkit/cub_reuse_nosync.cu");
    assert_eq!(code, 1, "{diff}");
    let added: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    assert_eq!(added, ["+    __syncthreads();"], "{diff}");
    let files: Vec<&str> = diff.lines().filter(|l| l.starts_with("+++ ")).collect();
    assert_eq!(files, ["+++ b/corpus/toolkit/cub_reuse_nosync.cu"], "{diff}");
    let lines: Vec<&str> = diff.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with('+') && !l.starts_with("+++"))
        .unwrap();
    assert!(lines[at - 1].contains("ExclusiveSum"), "between the two uses: {diff}");
    assert!(lines[at + 1].contains(".Sum("), "between the two uses: {diff}");
}

/// The CUTLASS producer/consumer kernel stripped of its NamedBarrier calls: the fix is written
/// with `NamedBarrier` (the file's `using` of it), with a CUTLASS ID (hardware ID minus 8).
#[test]
fn stripped_cutlass_kernel_is_fixed_with_named_barrier_calls() {
    let Some(tk) = toolkit("stripped_cutlass_kernel_is_fixed_with_named_barrier_calls") else {
        return;
    };
    let Some(cutlass) = tk.cutlass_include.clone() else {
        panic!("the tests' toolkit has no CUTLASS headers (run .ci/cuda-venv.sh)");
    };
    let inc = cutlass.to_str().unwrap();
    let (code, diff) = fix_diff(
        &tk,
        &["--arch", "sm_90", "-I", inc],
        "corpus/toolkit/cutlass_named_stripped.cu",
    );
    assert_eq!(code, 1, "{diff}");
    let added: Vec<&str> = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .map(str::trim)
        .collect();
    assert_eq!(
        added,
        [
            "+        NamedBarrier::arrive(64, 0);",
            "+        NamedBarrier::sync(64, 0);"
        ]
        .map(str::trim),
        "{diff}"
    );
}

/// A precompiled prelude Clang refuses (here a file that is no PCH at all, as a crash or an
/// older build can leave) is built again, and the kernel gets its verdict: a race in this one.
#[test]
fn a_refused_precompiled_prelude_is_built_again() {
    let Some(tk) = toolkit("a_refused_precompiled_prelude_is_built_again") else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let cuda = tk.cuda.to_str().unwrap();
    let run = || {
        bin()
            .env("XDG_CACHE_HOME", cache.path())
            .args(["check", "--cuda-path", cuda, "corpus/lib/atomic_slot_racy.cu"])
            .assert()
            .code(1)
    };
    run();
    let pchs: Vec<_> = std::fs::read_dir(cache.path().join("autosync-pch"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pch"))
        .collect();
    assert!(!pchs.is_empty(), "no precompiled prelude was built");
    for p in &pchs {
        std::fs::write(p, "not a precompiled header").unwrap();
    }
    run();
    for p in &pchs {
        assert!(
            std::fs::metadata(p).unwrap().len() > 1000,
            "{} was not built again",
            p.display()
        );
    }
}

/// Clang refuses a `__shared__ cuda::barrier` (its destructor is not empty): the error's help
/// spells the raw-storage form, and that form reads (corpus/toolkit/barrier_memcpy_async.cu).
#[test]
fn a_shared_cuda_barrier_gets_the_form_both_compilers_accept() {
    let Some(tk) = toolkit("a_shared_cuda_barrier_gets_the_form_both_compilers_accept") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared_barrier.cu");
    std::fs::write(
        &file,
        "//--blockDim=64 --gridDim=1\n#include <cuda/barrier>\n\
         __global__ void k(float *out) {\n\
         \x20   __shared__ cuda::barrier<cuda::thread_scope_block> bar;\n\
         \x20   if (threadIdx.x == 0) init(&bar, blockDim.x);\n\
         \x20   __syncthreads();\n\
         \x20   bar.arrive_and_wait();\n\
         \x20   out[threadIdx.x] = 1.0f;\n\
         }\n",
    )
    .unwrap();
    let out = bin()
        .args(["check", "--cuda-path", tk.cuda.to_str().unwrap()])
        .arg(&file)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("initialization is not supported"), "{err}");
    assert!(
        err.contains("alignas(barrier_t) __shared__ unsigned char bar_storage[sizeof(barrier_t)]"),
        "{err}"
    );
    assert!(err.contains("init(&bar, blockDim.x)"), "{err}");
}

/// CUTLASS compiles `NamedBarrier` as `brkpt` below sm_90: read for sm_80, the kernel whose
/// producer arrives before it writes is an error naming the architecture (never clean), and
/// `fix` writes nothing; read for sm_90a, the named checker finds the race and `fix` repairs
/// it with `NamedBarrier` calls.
#[test]
fn cutlass_named_barriers_below_sm90_always_trap() {
    let Some(tk) = toolkit("cutlass_named_barriers_below_sm90_always_trap") else {
        return;
    };
    let Some(cutlass) = tk.cutlass_include.clone() else {
        panic!("the tests' toolkit has no CUTLASS headers (run .ci/cuda-venv.sh)");
    };
    let file = "corpus/toolkit/cutlass_named_arrive_early.cu";
    let check = |arch: &str| {
        let out = bin()
            .args(["check", "--no-cache", "--arch", arch, "-I"])
            .arg(&cutlass)
            .arg("--cuda-path")
            .arg(&tk.cuda)
            .arg(file)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, err) = check("sm_80");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[always-traps]"), "{err}");
    assert!(err.contains("run with --arch sm_90a"), "{err}");
    assert!(err.contains("NamedBarrier::arrive"), "{err}");
    let (code, err) = check("sm_90a");
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("(named checker): 1 race") && !err.contains("always-traps"),
        "{err}"
    );
    let inc = cutlass.to_str().unwrap();
    let (code, diff) = fix_diff(&tk, &["--arch", "sm_80", "-I", inc], file);
    assert_eq!((code, diff.as_str()), (3, ""));
    let (code, diff) = fix_diff(&tk, &["--arch", "sm_90a", "-I", inc], file);
    assert_eq!(code, 1, "{diff}");
    assert!(diff.contains("+        NamedBarrier::sync(64, 0);"), "{diff}");
}

/// A C++20 file that includes the C++ library reads with the real toolkit: its allocator is
/// constexpr (so host and device in CUDA) and calls the aligned `operator new`, which Clang's
/// device pass does not find once the prelude is precompiled; C++20 reads the headers.
#[test]
fn a_cxx20_file_with_the_cxx_library_reads() {
    let Some(tk) = toolkit("a_cxx20_file_with_the_cxx_library_reads") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("k20.cu");
    std::fs::write(
        &f,
        "//--blockDim=64 --gridDim=1\n#include <vector>\n#include <concepts>\ntemplate <std::integral T>\n__global__ void k20(T *a) { a[blockIdx.x * 64 + threadIdx.x] = T(1); }\ntemplate __global__ void k20<int>(int *);\n",
    )
    .unwrap();
    let out = bin()
        .args(["check", "--no-cache", "--std", "c++20", "--cuda-path"])
        .arg(&tk.cuda)
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("kernel `k20<int>`") && text.contains("clean"), "{text}");
}
