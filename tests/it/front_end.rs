//! The Clang front end through the binary: finding Clang, template arguments for kernel
//! templates the file never instantiates (flags and autosync.yaml), flags from
//! compile_commands.json, and `--arch` deciding `#if __CUDA_ARCH__` code.

use crate::common::run;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// A kernel template nothing instantiates; with SHIFT = 1 neighbours race, with 0 they do not.
const TEMPLATE: &str = "//--blockDim=64 --gridDim=1\n\
template <int SHIFT, typename T>\n\
__global__ void shift(const T *in, T *out)\n\
{\n\
    __shared__ T s[64];\n\
    s[threadIdx.x] = in[threadIdx.x];\n\
    out[threadIdx.x] = s[(threadIdx.x + SHIFT) % 64];\n\
}\n";

#[test]
fn uninstantiated_templates_take_their_arguments_from_flags_or_config() {
    let dir = tempfile::tempdir().unwrap();
    let k = write(dir.path(), "k.cu", TEMPLATE);
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("kernel template `shift<SHIFT, typename T>` has no instantiation in this file"),
        "{out}"
    );
    assert!(out.contains("--define SHIFT=VALUE --define T=VALUE"), "{out}");
    let (code, out) = run(&["check", "--define", "SHIFT=1", "--define", "T=float"], &k);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("kernel `shift<1, float>`") && out.contains("race (RAW) on `s`"),
        "{out}"
    );
    let (code, out) = run(&["check", "--define", "SHIFT=0", "--define", "T=int"], &k);
    assert_eq!(code, 0, "{out}");
    // The config's template_args for this kernel; a --define of a parameter wins over it.
    write(
        dir.path(),
        "autosync.yaml",
        "kernels:\n  - name: shift\n    template_args: {SHIFT: 1, T: float}\n",
    );
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("kernel `shift<1, float>`"), "{out}");
    let (code, out) = run(&["check", "--define", "SHIFT=0"], &k);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kernel `shift<0, float>`"), "{out}");
    // `fix` writes the barrier into the template.
    let (code, out) = run(&["fix"], &k);
    assert_eq!(code, 0, "{out}");
    let fixed = std::fs::read_to_string(&k).unwrap();
    assert!(
        fixed.contains("in[threadIdx.x];\n__syncthreads();\nout[threadIdx.x]"),
        "{fixed}"
    );
}

#[test]
fn a_missing_clang_is_an_input_error_that_says_how_to_install_one() {
    let dir = tempfile::tempdir().unwrap();
    let k = write(dir.path(), "k.cu", "__global__ void k(int *o) { o[0] = 1; }\n");
    let (code, out) = run(&["check", "--clang", "/nonexistent/clang-99"], &k);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("Clang not found at `/nonexistent/clang-99`"), "{out}");
    assert!(out.contains("apt-get install clang"), "{out}");
}

/// A race that exists only when the device code is compiled for sm_70 or newer, with a
/// macro from compile_commands.json choosing the array size.
const ARCH: &str = "//--blockDim=64 --gridDim=1\n\
__global__ void k(const int *in, int *out)\n\
{\n\
    __shared__ int s[WIDTH];\n\
    s[threadIdx.x] = in[threadIdx.x];\n\
#if __CUDA_ARCH__ >= 700\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % WIDTH];\n\
#else\n\
    __syncthreads();\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % WIDTH];\n\
#endif\n\
}\n";

#[test]
fn compile_commands_and_arch_decide_what_the_device_pass_sees() {
    let dir = tempfile::tempdir().unwrap();
    let k = write(dir.path(), "src/k.cu", ARCH);
    // Without WIDTH the file does not compile.
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("use of undeclared identifier 'WIDTH'"), "{out}");
    write(
        dir.path(),
        "build/compile_commands.json",
        &format!(
            "[{{\"directory\": \"{}\", \"file\": \"../src/k.cu\", \"command\": \"nvcc -DWIDTH=64 -arch=sm_75 -c ../src/k.cu\"}}]",
            dir.path().join("build").display()
        ),
    );
    // The database's WIDTH and sm_75: the branch without a barrier.
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("race (RAW) on `s`"), "{out}");
    // --arch wins over the database: sm_60 takes the synchronized branch.
    let (code, out) = run(&["check", "--arch", "sm_60"], &k);
    assert_eq!(code, 0, "{out}");
    // Without the database the macro is missing again.
    let (code, _) = run(&["check", "--no-compile-commands"], &k);
    assert_eq!(code, 2);
}
