//! GPUVerify's annotation vocabulary, end to end through the binary: preconditions,
//! assumptions and axioms are assumed conjunct by conjunct where autosync can state them;
//! proof obligations, access predicates and facts relating two threads are noted and never
//! assumed, so none of them can make a racy kernel clean. (Corpus kernels `lib/gpuverify_*`
//! cover the verdicts under `fix` too.)

use crate::common::run;

/// (name, source, exit code of `check -v`, fragments of its output).
type Case = (&'static str, &'static str, i32, &'static [&'static str]);

const CASES: &[Case] = &[
    // An axiom inside a function is assumed where it stands.
    (
        "axiom_local.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o, int n) {\n  __axiom(n == 1);\n  if (n != 1) o[0] = threadIdx.x;\n  o[threadIdx.x + 1] = n;\n}\n",
        0,
        &["kernel `k` (sdv checker): clean"],
    ),
    // A file-scope axiom is assumed in every kernel of the file (two blocks; the axiom keeps the
    // first).
    (
        "axiom_two_kernels.cu",
        "//--blockDim=64 --gridDim=2\n__axiom(blockIdx.x == 0);\n__global__ void a(int *o) { o[threadIdx.x + blockIdx.x * 64] = 1; if (blockIdx.x > 0) o[0] = 2; }\n__global__ void b(int *o) { if (blockIdx.x != 0) o[0] = threadIdx.x; }\n",
        0,
        &["kernel `a` (sdv checker): clean", "kernel `b` (sdv checker): clean"],
    ),
    // A false postcondition, invariant or assertion is never assumed.
    (
        "ensures.cu",
        "//--blockDim=64 --gridDim=1\n__device__ int f(int x) {\n  __ensures(__return_val_int() == x);\n  return x % 32;\n}\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  int i = f(threadIdx.x);\n  __assert(i == threadIdx.x);\n  __global_assert(__implies(__enabled(), i == threadIdx.x));\n  __barrier_invariant(i == threadIdx.x, threadIdx.x);\n  s[i] = threadIdx.x;\n}\n",
        1,
        &[
            "race (WAW) on `s`",
            "note: GPUVerify annotation `__ensures` accepted, not checked",
            "note: GPUVerify annotation `__assert` accepted, not checked",
            "note: GPUVerify annotation `__global_assert` accepted, not checked",
            "note: GPUVerify annotation `__barrier_invariant` accepted, not checked",
        ],
    ),
    // Two-thread facts are dropped from an assumption (assuming `__uniform_int(t % 32)` would
    // make threads t and t + 32 one); the one-thread conjunct `n > 0` is kept.
    (
        "two_thread.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o, int n) {\n  __requires(n > 0 & __uniform_int(threadIdx.x % 32) & __distinct_int(n) & __same_group & __exclusive(n > 0));\n  __shared__ int s[64];\n  s[threadIdx.x % 32] = threadIdx.x;\n}\n",
        1,
        &[
            "race (WAW) on `s`",
            "note: part of `__requires` not assumed: `__other_int` has no value to autosync: it relates two threads",
            "note: part of `__requires` not assumed: `__other_bool` has no value to autosync: it relates two threads",
        ],
    ),
    // An assumption that reads memory adds no access and is not assumed.
    (
        "requires_memory.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  __requires(s[0] == 0 && o[1] == 2);\n  s[threadIdx.x] = 1;\n  o[threadIdx.x] = s[threadIdx.x];\n}\n",
        0,
        &["kernel `k` (sdv checker): clean", "note: part of `__requires` not assumed: it reads memory"],
    ),
    // A precondition over a thread-dependent value restricts the threads it speaks of: with
    // `__assume(i < 32)` only threads 0..31 run on, so no two share `s[i]`.
    (
        "assume.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  int i = threadIdx.x;\n  __assume(i < 32 && __implies(__enabled(), i >= 0));\n  __shared__ int s[32];\n  s[i % 32] = i;\n}\n",
        0,
        &["kernel `k` (sdv checker): clean"],
    ),
    // `__ite`, `__add_noovfl_*` and `__ptr_offset_bytes` are exact values: assuming the offset
    // is 0 leaves the even threads, which write distinct elements (odd thread 2k + 1 and even
    // thread 2k + 2 would share one).
    (
        "exact.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  int *p = o + threadIdx.x % 2;\n  __requires(__ptr_offset_bytes(p) == 0);\n  int i = __ite(threadIdx.x < 32, (int)threadIdx.x, __add_noovfl_int((int)threadIdx.x, 0));\n  p[i / 2] = threadIdx.x;\n}\n",
        0,
        &["kernel `k` (sdv checker): clean"],
    ),
    // Values only the verifier has, used as data, are unknown: the index may repeat.
    (
        "other_as_data.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  o[__other_int((int)threadIdx.x)] = 1;\n}\n",
        0,
        &[
            "benign data race",
            "note: `__other_int` has no value to autosync (it relates two threads): it is unknown here",
        ],
    ),
    // Read/write sets in invariants are noted, never assumed.
    (
        "access_sets.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  for (int j = 0; __invariant(__no_read(s)), __global_invariant(__write_implies(s, __write_offset_bytes(s) == threadIdx.x * 4)), j < 2; j++)\n    s[(threadIdx.x + j) % 64] = j;\n}\n",
        1,
        &["race (WAW) on `s`", "note: GPUVerify annotation `__invariant` accepted", "note: GPUVerify annotation `__global_invariant` accepted"],
    ),
    // `__requires_fresh_array` on a pointer parameter restates autosync's model.
    (
        "fresh.cu",
        "//--blockDim=64 --gridDim=1\nstruct P { float *a; };\n__global__ void k(P p, float *b) {\n  __requires_fresh_array(p.a);\n  __requires_fresh_array(b + 1);\n  p.a[threadIdx.x] = b[threadIdx.x];\n}\n",
        0,
        &[
            "note: `__requires_fresh_array`: the pointer already has an array of its own",
            "note: `__requires_fresh_array` not used: the pointer is not a parameter's own array",
        ],
    ),
    // An annotation whose argument has an effect keeps the effect.
    (
        "effects.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  int i = 0;\n  __assert(++i > 0);\n  s[threadIdx.x * i] = 1;\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        1,
        &["race (RAW) on `s`", "its argument has effects, which autosync keeps"],
    ),
];

#[test]
fn annotations_are_assumed_or_noted_never_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, text, code, wants) in CASES {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (got, out) = run(&["check", "-v"], &path);
        let out = out.replace(&format!("{}/", dir.path().display()), "");
        let missing: Vec<_> = wants.iter().filter(|w| !out.contains(*w)).collect();
        if got != *code || !missing.is_empty() {
            failures.push(format!(
                "{name}: exit {got} (want {code}), missing {missing:?} in:\n{out}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// Without the annotations the same kernels race: the assumptions above are what made them
/// clean (guards against a case that would be clean anyway).
#[test]
fn the_assumed_kernels_race_without_their_annotations() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, code, _) in CASES.iter().filter(|c| c.2 == 0) {
        if matches!(*name, "requires_memory.cu" | "fresh.cu" | "other_as_data.cu") {
            continue;
        }
        let stripped: String = text
            .lines()
            .filter(|l| !l.contains("__axiom") && !l.contains("__requires") && !l.contains("__assume"))
            .map(|l| format!("{l}\n"))
            .collect();
        let path = dir.path().join(name);
        std::fs::write(&path, &stripped).unwrap();
        let (got, out) = run(&["check"], &path);
        assert_ne!(got, *code, "{name} without annotations:\n{stripped}\n{out}");
    }
}
