//! Bad input, end to end through the binary: each case names the problem (with file:line:col
//! where there is a position), exits with the documented code, never panics, and leaves the
//! input file byte-for-byte unchanged — for `check` and for `fix` (which would write).
//!
//! Exit codes (README): 2 = the input is wrong (unreadable, not UTF-8, anything Clang rejects,
//! limits, no kernel), 4 = valid CUDA that autosync does not model (recursion, goto, function
//! pointers) or cannot conclude on; `check` reports named-barrier misuse as a defect (1)
//! and `fix` calls such a kernel unfixable (3): it never rewrites barriers it did not write.

use crate::common::{self, run};

/// One table row: the file contents and, per command, the exit code and a message fragment.
struct Case {
    name: &'static str,
    text: Vec<u8>,
    check: (i32, &'static str),
    fix: (i32, &'static str),
}

fn case(name: &'static str, text: impl Into<Vec<u8>>, check: (i32, &'static str), fix: (i32, &'static str)) -> Case {
    Case {
        name,
        text: text.into(),
        check,
        fix,
    }
}

fn table() -> Vec<Case> {
    const K: &str = "//--blockDim=32\n__global__ void k(int *o) {";
    vec![
        case("empty.cu", "", (2, "empty.cu: error: file is empty"), (2, "file is empty")),
        case("blank.cu", "\n  \n", (2, "file is empty"), (2, "file is empty")),
        case(
            "binary.cu",
            b"\x7fELF\x02\x01\x00\x00binary".to_vec(),
            (2, "binary.cu:1:7: error: file contains NUL bytes"),
            (2, "binary.cu:1:7: error: file contains NUL bytes"),
        ),
        case(
            "latin1.cu",
            b"// caf\xe9\n__global__ void k(int *o) { }\n".to_vec(),
            (2, "latin1.cu:1:7: error: file is not valid UTF-8"),
            (2, "latin1.cu:1:7: error: file is not valid UTF-8"),
        ),
        case(
            "comment.cu",
            format!("{K}\n  /* never closed\n  o[0] = 1;\n}}\n"),
            (2, "comment.cu:3:3: error: Clang: unterminated /* comment"),
            (2, "comment.cu:3:3: error: Clang: unterminated /* comment"),
        ),
        case(
            "string.cu",
            format!("{K}\n  const char *s = \"abc;\n}}\n"),
            (2, "string.cu:3:19: error: Clang: missing terminating '\"' character"),
            (2, "string.cu:3:19: error: Clang: missing terminating"),
        ),
        case(
            "braces.cu",
            format!("{K}\n  if (threadIdx.x) {{ o[0] = 1;\n}}\n"),
            (2, "braces.cu:4:2: error: Clang: expected '}'"),
            (2, "braces.cu:4:2: error: Clang: expected '}'"),
        ),
        case(
            "include.cu",
            format!("#include \"no_such_header.h\"\n{K} o[0] = 1; }}\n"),
            (2, "include.cu:1:10: error: Clang: 'no_such_header.h' file not found\n  help: add the header's directory with -I DIR"),
            (2, "'no_such_header.h' file not found"),
        ),
        case(
            "macro.cu",
            format!("#define A B\n#define B A\n{K} o[threadIdx.x] = A; }}\n"),
            (2, "macro.cu:4:46: error: Clang: use of undeclared identifier 'A'"),
            (2, "macro.cu:4:46: error: Clang: use of undeclared identifier 'A'"),
        ),
        case(
            "recursion.cu",
            "//--blockDim=32\n__device__ int f(int x) { return x ? f(x - 1) : 0; }\n__global__ void k(int *o) { o[threadIdx.x] = f(3); }\n",
            (4, "recursion.cu:2:38: unsupported: recursive call of `f`"),
            (4, "recursive call of `f`"),
        ),
        case(
            "memcpy_len.cu",
            "//--blockDim=32\n__global__ void k(int *o, const int *i, int n) {\n  size_t len = 4;\n  len *= n;\n  memcpy(o + threadIdx.x, i, len);\n}\n",
            (4, "memcpy_len.cu:5:3: unsupported: memcpy with a length that is not a constant"),
            (4, "memcpy with a length that is not a constant"),
        ),
        case(
            "bounds.cu",
            "//--blockDim=512\n__global__ void __launch_bounds__(256) k(int *o) { o[threadIdx.x] = 1; }\n",
            (2, "bounds.cu:2:17: error: blockDim has 512 threads but __launch_bounds__ allows at most 256"),
            (2, "__launch_bounds__ allows at most 256"),
        ),
        case(
            "bar16.cu",
            "//--blockDim=64\n__global__ void k(int *o) {\n  asm volatile(\"bar.sync 16, 64;\");\n  o[threadIdx.x] = 1;\n}\n",
            (1, "named barrier id 16 is outside 0..=15\n --> "),
            (3, "kernel `k` is unfixable; nothing written"),
        ),
        case(
            "count33.cu",
            "//--blockDim=64\n__global__ void k(int *o) {\n  asm volatile(\"bar.sync 1, 33;\");\n  o[threadIdx.x] = 1;\n}\n",
            (1, "thread count 33 is not a positive multiple of 32"),
            (3, "kernel `k` is unfixable; nothing written"),
        ),
        case(
            "goto.cu",
            format!("{K}\n  int i = 0;\ntop:\n  o[i] = 1;\n  if (++i < 3) goto top;\n}}\n"),
            (4, "goto.cu:4:1: unsupported: goto and labels are not supported"),
            (4, "goto and labels are not supported"),
        ),
        case(
            "fnptr.cu",
            "//--blockDim=32\n__global__ void k(int *o, int (*f)(int)) { o[threadIdx.x] = f(1); }\n",
            (4, "fnptr.cu:2:61: unsupported: a call through a function pointer that may hold no function of this file"),
            (4, "fnptr.cu:2:61: unsupported:"),
        ),
        case(
            "slot_arith.cu",
            format!("{K}\n  int *p = o;\n  int **pp = &p;\n  (*(pp + 1))[threadIdx.x] = 1;\n}}\n"),
            (4, "slot_arith.cu:5:6: unsupported: arithmetic on the address of a pointer variable"),
            (4, "arithmetic on the address of a pointer variable"),
        ),
        case(
            "table_store.cu",
            "//--blockDim=32\nstruct T { int *p[2]; };\n__global__ void k(T t, int *o) {\n  t.p[0] = o;\n  t.p[0][threadIdx.x] = 1;\n}\n",
            (4, "table_store.cu:4:3: unsupported: assignment into `t.p`, an array of pointers in a kernel parameter"),
            (4, "an array of pointers in a kernel parameter"),
        ),
        case(
            "pointer_array_copy.cu",
            "//--blockDim=32\n__global__ void k(int *a, int *b) {\n  int *s[2];\n  int *t[2];\n  t[0] = a;\n  t[1] = b;\n  memcpy(s, t, sizeof(s));\n  s[0][threadIdx.x] = 1;\n}\n",
            (4, "pointer_array_copy.cu:7:10: unsupported: a write into `s`, an array of pointers"),
            (4, "an array of pointers"),
        ),
        // No launch configuration: gridDim stays symbolic, and across blocks `o[threadIdx.x]`
        // is written by every block (with a barrier-fixable race too, `fix` writes that barrier
        // and exits 3: tests/workflow.rs).
        case(
            "no_launch.cu",
            "__global__ void k(int *o) {\n  o[threadIdx.x] = blockIdx.x;\n}\n",
            (1, "race (WAW) on `o` between blocks (no barrier can fix this): write at "),
            (3, "threads of different blocks race on `o`"),
        ),
    ]
}

#[test]
fn bad_inputs_fail_cleanly_with_a_located_message_and_leave_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for c in table() {
        let path = dir.path().join(c.name);
        std::fs::write(&path, &c.text).unwrap();
        for (args, (code, msg)) in [(&["check"][..], c.check), (&["fix"][..], c.fix)] {
            let (got, err) = run(args, &path);
            let err = err.replace(&format!("{}/", dir.path().display()), "");
            if got != code || !err.contains(msg) || err.contains("panicked") {
                failures.push(format!(
                    "{} {}: exit {got} (want {code}), stderr:\n{err}\n(want `{msg}`)",
                    args[0], c.name
                ));
            }
            assert_eq!(
                std::fs::read(&path).unwrap(),
                c.text,
                "{} {} changed the file",
                args[0],
                c.name
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// A block of more than 1024 threads is a launch CUDA refuses when autosync's own inputs give
/// it (the command line, autosync.yaml, `__launch_bounds__`); a GPUVerify header line is a
/// verifier's setting, checked as given with a note.
#[test]
fn a_block_over_1024_threads_is_an_error_except_on_a_verifier_header_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big_block.cu");
    let text = "//--blockDim=2048 --gridDim=1\n__global__ void k(int *o) { o[threadIdx.x] = 1; }\n";
    std::fs::write(&path, text).unwrap();
    let (code, err) = run(&["check", "-v"], &path);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("big_block.cu:1:1: note: blockDim from the header line has 2048 threads, more than the 1024 CUDA launches per block: kernel `k` is checked for the block as given"),
        "{err}"
    );
    // Every thread of the 2048 writes its own element; two writing one element race.
    let racy = dir.path().join("big_racy.cu");
    std::fs::write(
        &racy,
        "//--blockDim=2048 --gridDim=1\n__global__ void k(int *o) { o[threadIdx.x % 1500] = threadIdx.x; }\n",
    )
    .unwrap();
    let (code, err) = run(&["check"], &racy);
    assert_eq!(code, 1, "{err}");
    for (args, want) in [
        (
            &["check", "--block-dim", "2048"][..],
            "big_block.cu:2:1: error: blockDim has 2048 threads; CUDA allows at most 1024",
        ),
        (
            &["check", "--block-dim", "[64,64]"][..],
            "blockDim has 4096 threads; CUDA allows at most 1024",
        ),
    ] {
        let (code, err) = run(args, &path);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let bounds = dir.path().join("bounds.cu");
    std::fs::write(
        &bounds,
        "//--blockDim=2048\n__global__ void __launch_bounds__(256) k(int *o) { o[threadIdx.x] = 1; }\n",
    )
    .unwrap();
    let (code, err) = run(&["check"], &bounds);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("blockDim has 2048 threads; CUDA allows at most 1024"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// One kernel the front end cannot read leaves the file's other kernels their verdicts: the
/// race in one is reported (and fixed), the other is inconclusive with the construct's place.
#[test]
fn an_unsupported_construct_makes_only_its_kernel_inconclusive() {
    let (_dir, path) = common::copy_to_temp("cpp/kernel_isolation.cu");
    let (code, out) = run(&["check", "--format", "json"], &path);
    assert_eq!(code, 4, "{out}");
    let doc: serde_json::Value = serde_json::from_str(out.trim_start_matches(|c| c != '{')).unwrap();
    let kernels = doc["kernels"].as_array().unwrap();
    let status: Vec<(&str, &str)> = kernels
        .iter()
        .map(|k| (k["kernel"].as_str().unwrap(), k["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        [("mirrored_fields<>", "inconclusive"), ("neighbour_sum", "defects")],
        "{out}"
    );
    let why = &kernels[0]["defects"][0];
    assert_eq!(why["rule"], "inconclusive");
    assert_eq!(why["message"], "unsupported: operator `.*` is not supported");
    assert_eq!(
        (why["primary"]["line"].as_u64(), why["primary"]["column"].as_u64()),
        (Some(18), Some(30))
    );
    assert!(doc["errors"].as_array().unwrap().is_empty(), "{out}");
    let (code, out) = run(&["check"], &path);
    assert_eq!(code, 4);
    assert!(out.contains("kernel_isolation.cu:18:30"), "{out}");
    assert!(out.contains("kernel `neighbour_sum` (sdv checker): 1 race"), "{out}");
    // fix writes the race's barrier and leaves the unread kernel as it is.
    let (code, out) = run(&["fix"], &path);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("kernel `mirrored_fields<>` is inconclusive; left as it is"),
        "{out}"
    );
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert_eq!(fixed.matches("__syncthreads();").count(), 2, "{fixed}");
}

#[test]
fn a_named_file_with_host_code_only_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let text = "#include <cstdio>\n__device__ int helper(int a) { return a + 1; }\n\
                void launch_nothing() { printf(\"%d\\n\", 1); }\n";
    let path = dir.path().join("host_only.cu");
    std::fs::write(&path, text).unwrap();
    for cmd in ["check", "fix"] {
        let (code, err) = run(&[cmd], &path);
        assert_eq!(code, 0, "{cmd}: {err}");
        assert!(
            err.contains("host_only.cu: note: no __global__ kernel in this file (nothing to check)"),
            "{cmd}: {err}"
        );
        assert!(!err.contains("error"), "{cmd}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_directory_without_kernels_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("helpers.cuh"),
        "__device__ int f(int a) { return a; }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("empty.cu"), "").unwrap();
    for cmd in ["check", "fix"] {
        let (code, err) = run(&[cmd], dir.path());
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(
            err.contains("helpers.cuh: note: no __global__ kernel in this file"),
            "{cmd}: {err}"
        );
        assert!(err.contains("empty.cu: note: file is empty"), "{cmd}: {err}");
        assert!(
            err.contains("error: no __global__ kernel in the given paths"),
            "{cmd}: {err}"
        );
    }
    // A directory with one kernel besides the header is fine: headers are only noted.
    std::fs::write(
        dir.path().join("k.cu"),
        "//--blockDim=32\n__global__ void k(int *o) { o[blockIdx.x * 32 + threadIdx.x] = 1; }\n",
    )
    .unwrap();
    let (code, err) = run(&["check"], dir.path());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_ten_megabyte_file_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.cu");
    let mut text = String::from(
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
    );
    let line = "// padding padding padding padding padding padding padding padding padding padding\n";
    while text.len() < 10 << 20 {
        text.push_str(line);
    }
    std::fs::write(&path, &text).unwrap();
    let (code, err) = run(&["check"], &path);
    assert_eq!(code, 1, "{err}");
    let (code, err) = run(&["fix", "--check"], &path);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("big.cu:5: would insert __syncthreads()"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn fix_refuses_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ro.cu");
    let text = "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n";
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let (code, err) = run(&["fix"], &path);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ro.cu: the file is read-only; nothing written"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);
    // --diff writes nothing, so a read-only file is fine there (exit 1: it would change).
    let (code, err) = run(&["fix", "--diff"], &path);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("+  __syncthreads();"), "{err}");
}

/// An operator the lowering does not model (here `.*`, a pointer to member) makes the kernel
/// inconclusive (exit 4) with the operator named at its file:line:col, never an opaque value.
#[test]
fn an_unmodelled_operator_is_a_located_inconclusive() {
    let (_dir, path) = common::copy_to_temp("cpp/member_pointer.cu");
    let (code, err) = run(&["check", "--cuda-shim"], &path);
    assert_eq!(code, 4, "{err}");
    assert!(
        err.contains("member_pointer.cu:17:30: unsupported: operator `.*` is not supported"),
        "{err}"
    );
}
