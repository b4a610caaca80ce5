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

/// A kernel whose barrier and tile width come from a header only the build's include folder
/// holds, switched by a define only the build passes.
const CMAKE_KERNEL: &str = "//--blockDim=64 --gridDim=1\n\
#include \"tile_config.h\"\n\
__global__ void k(const float *in, float *out)\n\
{\n\
    __shared__ float s[TILE];\n\
    s[threadIdx.x] = in[threadIdx.x];\n\
    TILE_SYNC();\n\
    out[threadIdx.x] = s[(threadIdx.x + 1) % TILE];\n\
}\n";

const CMAKE_HEADER: &str = "#pragma once\n\
#define TILE 64\n\
#ifdef TILE_SAFE_SYNC\n\
#define TILE_SYNC() __syncthreads()\n\
#else\n\
#define TILE_SYNC()\n\
#endif\n";

/// One entry as CMake's CUDA language support writes it for nvcc (CMake 3.2x).
fn cmake_entry(build: &Path, src: &Path, include: &Path, defines: &str) -> String {
    let command = format!(
        "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler {defines} -I{inc} -O3 -DNDEBUG -std=c++17 \
         \\\"--generate-code=arch=compute_80,code=[compute_80,sm_80]\\\" -Xcompiler=-fPIC \
         --expt-relaxed-constexpr -use_fast_math -MD -MT CMakeFiles/k.dir/src/k.cu.o \
         -MF CMakeFiles/k.dir/src/k.cu.o.d -x cu -c {src} -o CMakeFiles/k.dir/src/k.cu.o",
        inc = include.display(),
        src = src.display()
    );
    format!(
        "[{{\"directory\": \"{}\", \"command\": \"{command}\", \"file\": \"{}\", \"output\": \"CMakeFiles/k.dir/src/k.cu.o\"}}]",
        build.display(),
        src.display()
    )
}

/// `cmake -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON` puts the database in the build folder:
/// found without a flag when that folder is `build/` beside an ancestor (as clangd looks),
/// named with `-p DIR` anywhere else (as clang-tidy takes it). Its include folder and defines
/// decide the verdict, and `--verbose` names the entry used.
#[test]
fn a_cmake_build_folders_nvcc_commands_decide_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    let k = write(&proj, "src/k.cu", CMAKE_KERNEL);
    write(&proj, "include/tile_config.h", CMAKE_HEADER);
    // Without the build's include folder the header is not found.
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("'tile_config.h' file not found"), "{out}");
    // proj/build, found without a flag: the build defines TILE_SAFE_SYNC, so the barrier is there.
    let build = proj.join("build");
    let db = cmake_entry(&build, &k, &proj.join("include"), "-DTILE_SAFE_SYNC");
    write(&build, "compile_commands.json", &db);
    let (code, out) = run(&["check", "--verbose"], &k);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("compile_commands.json"), "{out}");
    assert!(out.contains("--generate-code=arch=compute_80"), "{out}");
    // An out-of-tree build folder without the define, named with -p: the barrier is gone.
    let out_dir = dir.path().join("out");
    write(
        &out_dir,
        "compile_commands.json",
        &cmake_entry(&out_dir, &k, &proj.join("include"), ""),
    );
    let p = out_dir.display().to_string();
    for flag in ["-p", "--compile-commands"] {
        let (code, out) = run(&["check", flag, &p], &k);
        assert_eq!(code, 1, "{flag}: {out}");
        assert!(out.contains("race (RAW) on `s`"), "{flag}: {out}");
    }
}

/// A kernel template the file leaves open (the code base instantiates it in another file):
/// named on the command line it is inconclusive with what to give, beside the verdicts of the
/// file's other kernels; found in a directory it is a note and the run is not inconclusive.
#[test]
fn a_template_instantiated_elsewhere_is_a_note_when_a_directory_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{TEMPLATE}\n__global__ void plain(const int *in, int *out)\n{{\n    out[blockIdx.x * 64 + threadIdx.x] = in[threadIdx.x];\n}}\n"
    );
    let k = write(dir.path(), "ops/k.cu", &text);
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("kernel `plain` (sdv checker): clean"), "{out}");
    assert!(
        out.contains("kernel `shift<SHIFT, typename T>` (not lowered): inconclusive"),
        "{out}"
    );
    assert!(out.contains("--define SHIFT=VALUE --define T=VALUE"), "{out}");
    let (code, out) = run(&["check"], &dir.path().join("ops"));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kernel `plain` (sdv checker): clean"), "{out}");
    assert!(
        out.contains(
            "k.cu:2:1: note: kernel template `shift<SHIFT, typename T>` has no instantiation in this file; it is checked where the code base instantiates it"
        ),
        "{out}"
    );
}

/// `__launch_bounds__` with an expression of the template's parameters is read as the
/// instantiation computes it (it was read as its first constant, 32, and the launch's 128
/// threads were refused).
#[test]
fn launch_bounds_computed_from_template_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let k = write(
        dir.path(),
        "rows.cu",
        "#define WARP 32\n\
         template <int ROWS>\n\
         __global__ void __launch_bounds__(WARP * ROWS, 2) rows(const float *in, float *out) {\n\
         \x20 out[((unsigned long long)blockIdx.x * ROWS + threadIdx.y) * WARP + threadIdx.x] = in[threadIdx.x];\n\
         }\n\
         void launch(const float *in, float *out, int n) {\n\
         \x20 constexpr int rows_per_block = 4;\n\
         \x20 rows<rows_per_block><<<1, dim3(WARP, rows_per_block)>>>(in, out + n);\n\
         }\n",
    );
    let (code, out) = run(&["check"], &k);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("kernel `rows<4>` (sdv checker): clean"), "{out}");
    assert!(out.contains("blockDim = (32, 4, 1)"), "{out}");
}

/// A launch through a helper template (the kernel and a struct of launch parameters passed in,
/// `kernel<<<cfg.grid, cfg.block, …>>>` inside) is a launch at the helper's call: the note names
/// that call and the block read through the struct's constructor, and the verdict depends on it.
#[test]
fn a_launch_helper_gives_the_block_at_its_call() {
    let (code, out) = run(&["check"], Path::new("corpus/launch/helper_block.cu"));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "helper_block.cu:33:5: note: assumed: kernel `mirror_halves` is checked with blockDim = (128, 1, 1), as launched here"
        ),
        "{out}"
    );
    let (code, out) = run(&["check"], Path::new("corpus/launch/helper_block_wide.cu"));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("blockDim = (256, 1, 1), as launched here"), "{out}");
}

/// Array indices are assumed below 2^40 elements: the grid-stride loop over an `int64_t`
/// count is clean, and with `--index-wraparound` its two blocks meet where `4 * i` wraps.
#[test]
fn index_bound_and_index_wraparound() {
    let f = Path::new("corpus/stride/grid_i64.cu");
    let (code, out) = run(&["check", "-v"], f);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("array indices are assumed below 2^40 elements"), "{out}");
    let (code, out) = run(&["check", "--index-wraparound"], f);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("between blocks"), "{out}");
}

/// A block the helper or the constructor changes after it is passed is not the launch's: a
/// by-value parameter the helper writes, or a field the constructor's body writes, leaves the
/// block to run time (checked for every size: the 128-thread kernel then races).
#[test]
fn a_launch_helper_that_changes_the_block_gives_none() {
    let text = std::fs::read_to_string("corpus/launch/helper_block.cu").unwrap();
    let by_value = text.replace(
        "static void launch_with(Kernel kernel, const launch_cfg &cfg, Args &&...args) {",
        "static void launch_with(Kernel kernel, launch_cfg cfg, Args &&...args) {\n    cfg.block.x = 256;",
    );
    let in_body = text.replace(
        ": grid(g), block(b), smem((size_t)m), stream(s) {}",
        ": grid(g), block(b), smem((size_t)m), stream(s) { block.x *= 2; }",
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, changed) in [("by_value.cu", by_value), ("in_body.cu", in_body)] {
        assert_ne!(changed, text, "{name}: the edit applies");
        let f = write(dir.path(), name, &changed);
        let (code, out) = run(&["check"], &f);
        assert_eq!(code, 1, "{name}: {out}");
        assert!(!out.contains("as launched here"), "{name}: {out}");
    }
}

/// A kernel template the file leaves open is reported at its own header, whichever headers
/// the lowered kernels reach first (its span was once read with the other files' numbering,
/// naming the wrong header, or a place past the end of one).
#[test]
fn an_open_template_is_located_in_its_own_header() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("a.h"),
        "__device__ inline int twice(int v) {\n  return 2 * v;\n}\n",
    )
    .unwrap();
    std::fs::write(
        d.path().join("b.h"),
        "// an open template\ntemplate <int N>\n__global__ void scale_n(int *o) { o[threadIdx.x] *= N; }\n",
    )
    .unwrap();
    let f = d.path().join("k.cu");
    std::fs::write(
        &f,
        "//--blockDim=64 --gridDim=1\n#include \"a.h\"\n#include \"b.h\"\n__global__ void k(int *o) { o[threadIdx.x] = twice(threadIdx.x); }\n",
    )
    .unwrap();
    let (_, out) = crate::common::run(&["check", "--no-cache"], &f);
    assert!(out.contains("b.h:2:1"), "{out}");
    assert!(!out.contains("a.h:2:1"), "{out}");
}

/// An integer holding an array's address becomes a pointer into that array again; one that
/// a loop later gives another array's address would point into the wrong array on the next
/// iteration, so the kernel is inconclusive naming it rather than checked with the first.
#[test]
fn an_integer_given_two_arrays_addresses_in_a_loop_is_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = |second: &str| {
        format!(
            "//--blockDim=64 --gridDim=1\n#include <cstdint>\n__global__ void k(float *out) {{\n\
             __shared__ float a[64], b[64];\n  unsigned t = threadIdx.x;\n\
             uintptr_t p = reinterpret_cast<uintptr_t>(&a[0]) + 0;\n\
             for (int i = 0; i < 2; ++i) {{\n    float *q = reinterpret_cast<float *>(p);\n\
             q[t] = i;\n    p = reinterpret_cast<uintptr_t>(&{second}[0]) + 0;\n  }}\n\
             out[t] = a[63 - t];\n}}\n"
        )
    };
    let f = write(dir.path(), "two.cu", &kernel("b"));
    let (code, out) = run(&["check"], &f);
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("a pointer made from the integer `p`"), "{out}");
    // The same array's address again: one origin, and the missing barrier is found.
    let f = write(dir.path(), "one.cu", &kernel("a"));
    let (code, out) = run(&["check"], &f);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("data race (RAW) on `q` and `a`"), "{out}");
    assert!(out.contains("then read at ") && out.contains("one.cu:12:"), "{out}");
}
