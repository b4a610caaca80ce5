//! Code as deep as generated or unrolled sources make it, through the binary: a sum of
//! thousands of terms and a chain of a thousand nested `if`s are read, checked and fixed —
//! never a stack overflow, never "cannot read Clang's AST dump" (a sum of 60 terms nested
//! deeper than serde_json's default limit).

use crate::common::run;

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `s[t] = a + a + … (n terms)`, then a neighbour's element read without a barrier.
fn deep_sum(n: usize) -> String {
    let sum = vec!["a"; n].join(" + ");
    format!(
        "//--blockDim=64 --gridDim=1\n\
         __global__ void deep_sum(float *out, float a) {{\n\
         \x20   __shared__ float s[64];\n\
         \x20   s[threadIdx.x] = {sum};\n\
         \x20   out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
         }}\n"
    )
}

#[test]
fn a_sum_of_thousands_of_terms_is_checked_and_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "sum.cu", &deep_sum(3000));
    let (code, out) = run(&["check"], &f);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("data race (RAW) on `s`"), "{out}");
    let (code, out) = run(&["fix"], &f);
    assert_eq!(code, 0, "{out}");
    assert!(std::fs::read_to_string(&f).unwrap().contains("__syncthreads();"));
    let (code, out) = run(&["check"], &f);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn ir_of_a_deep_sum_runs_on_a_deep_stack() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "sum.cu", &deep_sum(5000));
    let (code, out) = run(&["ir"], &f);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kernel deep_sum"), "{out}");
}

#[test]
fn a_thousand_nested_ifs_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let ifs: String = (0..1000).map(|i| format!("    if (n > {i})\n")).collect();
    let text = format!(
        "//--blockDim=64 --gridDim=1\n\
         __global__ void deep_ifs(float *out, int n) {{\n\
         \x20   __shared__ float s[64];\n\
         \x20   s[threadIdx.x] = 1.0f;\n\
         {ifs}\
         \x20   out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n\
         }}\n"
    );
    let f = write(dir.path(), "ifs.cu", &text);
    let (code, out) = run(&["check"], &f);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("data race (RAW) on `s`"), "{out}");
}
