//! Calls the front end cannot inline: each is modelled, on the known-pure list, declared pure
//! by the user, or the kernel is inconclusive. None of the paths that once assumed a call pure
//! can end "clean" now (every case here would have checked clean with the old front end).

use crate::common::run;

/// (name, source, extra flags, exit code of `check`, a fragment of its output).
type Case = (&'static str, &'static str, &'static [&'static str], i32, &'static str);

const CASES: &[Case] = &[
    (
        "undeclared.cu",
        "//--blockDim=64\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[0];\n  foo();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &[],
        2,
        "undeclared.cu:5:3: error: Clang: use of undeclared identifier 'foo'",
    ),
    // A function with no body here (compiled separately): modelled as touching any element
    // of what it is given, so the race around it is still found ...
    (
        "no_body.cu",
        "//--blockDim=64\n__device__ void publish(int v);\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[0];\n  publish(1);\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "race (RAW) on `s`",
    ),
    // ... and so is one with what it is given (it may read any element the threads write) ...
    (
        "no_body_array.cu",
        "//--blockDim=64\n__device__ void publish(int *p);\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[0];\n  publish(s);\n}\n",
        &[],
        1,
        "write at no_body_array.cu:5:3, then atomic at no_body_array.cu:6:3",
    ),
    // ... and a file's device variable it may write, read by the kernel after it.
    (
        "no_body_global.cu",
        "//--blockDim=64\n__device__ int total;\n__device__ void publish(int v);\n__global__ void k(int *o) {\n  publish(1);\n  o[threadIdx.x] = total;\n}\n",
        &[],
        1,
        "on `total`",
    ),
    // Where not every thread may call it, it may hold a barrier that would diverge.
    (
        "no_body_branch.cu",
        "//--blockDim=64\n__device__ void publish(int v);\n__global__ void k(int *o) {\n  if (threadIdx.x < 32) publish(1);\n  o[threadIdx.x] = 1;\n}\n",
        &[],
        4,
        "no_body_branch.cu:4:25: unsupported: `publish` has no body in this translation unit, and it is called where not every thread",
    ),
    // An array of pointers it is given may come back filled with anything.
    (
        "no_body_pointers.cu",
        "//--blockDim=64\n__device__ void fill(int **p);\n__global__ void k(int *a, int *b) {\n  int *s[2];\n  s[0] = a;\n  s[1] = b;\n  fill(s);\n  s[0][threadIdx.x] = 1;\n}\n",
        &[],
        4,
        "no_body_pointers.cu:8:3: unsupported: dereference of a pointer `fill` may have set",
    ),
    // An address passed as a number may be written through.
    (
        "no_body_address.cu",
        "//--blockDim=64\n__device__ void poke(unsigned long long a);\n__global__ void k(int *o) {\n  poke((unsigned long long)o + 4);\n  o[threadIdx.x] = 1;\n}\n",
        &[],
        4,
        "no_body_address.cu:4:3: unsupported: `poke` has no body in this translation unit, and it is given an address as a number",
    ),
    // A pointer into a local object: what it does to the object is not bounded.
    (
        "no_body_object.cu",
        "//--blockDim=64\nstruct P { int a; int b; };\n__device__ void publish(P *p);\n__global__ void k(int *o) {\n  P x;\n  x.a = 1;\n  publish(&x);\n  o[threadIdx.x] = x.a;\n}\n",
        &[],
        4,
        "is given a pointer into the local object",
    ),
    // The user may declare it pure: then the race around it is found.
    (
        "no_body_pure.cu",
        "//--blockDim=64\n__device__ void publish(int v);\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[0];\n  publish(1);\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &["--assume-pure", "publish"],
        1,
        "race (RAW) on `s`",
    ),
    // A block sync under a thread-dependent condition is barrier divergence, not nothing.
    (
        "cg_divergent.cu",
        "//--blockDim=64\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  cg::thread_block b = cg::this_thread_block();\n  s[threadIdx.x] = o[0];\n  if (threadIdx.x < 32) cg::sync(b);\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "divergence",
    ),
    // A grid-wide sync under a branch only the even blocks take: the grid would hang
    // (barrier divergence between blocks), never ignored.
    (
        "grid_sync.cu",
        "//--blockDim=64\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o) {\n  cg::grid_group g = cg::this_grid();\n  o[threadIdx.x] = 1;\n  if (blockIdx.x % 2 == 0) g.sync();\n  o[threadIdx.x + 64] = o[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "grid barrier under a condition that may differ between blocks",
    ),
    // After an early return some blocks may take, a top-level grid sync may hang the grid:
    // inconclusive, never phases.
    (
        "grid_sync_after_return.cu",
        "//--blockDim=64 --gridDim=2\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o, int *p) {\n  cg::grid_group g = cg::this_grid();\n  o[threadIdx.x] = p[blockIdx.x];\n  if (blockIdx.x == 1) return;\n  g.sync();\n  p[threadIdx.x + 64] = o[63 - threadIdx.x];\n}\n",
        &[],
        4,
        "after a path that may leave the kernel",
    ),
    // At the top level it orders the blocks' phases: the store before it and the read after it
    // do not race; the stores after it, by every block to the same elements, still do.
    (
        "grid_sync_top.cu",
        "//--blockDim=64 --gridDim=2\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void k(int *o, int *p) {\n  cg::grid_group g = cg::this_grid();\n  o[threadIdx.x] = p[blockIdx.x];\n  g.sync();\n  p[threadIdx.x + 64] = o[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "(WAW) on `p` between blocks",
    ),
    // A system function that is neither modelled nor known pure (constexpr, so device code
    // may call it): its body bottoms out in a builtin autosync does not model.
    (
        "std_launder.cu",
        "//--blockDim=64\n#include <new>\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[threadIdx.x];\n  int a = s[threadIdx.x];\n  a = *std::launder(&a);\n  o[threadIdx.x] = a;\n}\n",
        &["--std", "c++20"],
        4,
        "which autosync does not model",
    ),
    // A system function with a body (constexpr since C++20) is inlined, down to `std::move`,
    // which designates its argument.
    (
        "std_swap.cu",
        "//--blockDim=64 --gridDim=1\n#include <utility>\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[threadIdx.x];\n  int a = s[threadIdx.x];\n  int b = 1;\n  std::swap(a, b);\n  o[threadIdx.x] = a + b;\n}\n",
        &["--std", "c++20"],
        0,
        "clean",
    ),
    // A fence orders memory but is not a barrier: the race stays.
    (
        "fence.cu",
        "//--blockDim=64\n__global__ void k(int *o) {\n  __shared__ int s[64];\n  s[threadIdx.x] = o[0];\n  __threadfence_block();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "race (RAW) on `s`",
    ),
    // An asm statement that touches memory in a way autosync does not model.
    (
        "wmma_load.cu",
        "//--blockDim=64\n__global__ void k(const float *g, unsigned *o) {\n  __shared__ float s[64];\n  unsigned a = (unsigned)__cvta_generic_to_shared(&s[0]), r;\n  asm volatile(\"wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%0}, [%1];\" : \"=r\"(r) : \"r\"(a));\n  o[threadIdx.x] = r;\n}\n",
        &[],
        4,
        "wmma.load",
    ),
    // Modelled PTX: the producer's st.shared and the consumer's read race without a barrier.
    (
        "ptx_store.cu",
        "//--blockDim=64\n__global__ void k(float *o) {\n  __shared__ float s[64];\n  unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);\n  asm volatile(\"st.shared.f32 [%0], %1;\" :: \"r\"(a), \"f\"(1.0f) : \"memory\");\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
        &[],
        1,
        "data race (RAW) on `a` and `s`: write at ptx_store.cu:5:49",
    ),
    // curand: threads sharing one generator state race.
    (
        "curand_shared.cu",
        "//--blockDim=64\n#include <curand_kernel.h>\n__global__ void k(curandState *st, float *o) {\n  o[threadIdx.x] = curand_uniform(&st[0]);\n}\n",
        &[],
        1,
        "on `st`",
    ),
    // A call through a function pointer that may hold no function of this file.
    (
        "fnptr.cu",
        "//--blockDim=64\n__device__ int twice(int x) { return 2 * x; }\n__global__ void k(int *o, int (*f)(int)) {\n  o[threadIdx.x] = f(1) + twice(2);\n}\n",
        &[],
        4,
        "a call through a function pointer that may hold no function of this file",
    ),
    // Every candidate of a call through a pointer is inlined: the one that writes a
    // neighbour's slot races, whichever the other does.
    (
        "fnptr_candidates.cu",
        "//--blockDim=64 --gridDim=1\n__device__ void own(int *s) { s[threadIdx.x] = 1; }\n__device__ void next(int *s) { s[(threadIdx.x + 1) % 64] = 2; }\n__device__ void (*d_own)(int *) = own;\n__device__ void (*d_next)(int *) = next;\n__global__ void k(int *o, void (*f)(int *)) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 0;\n  f(s);\n  o[threadIdx.x] = s[threadIdx.x];\n}\n",
        &[],
        1,
        "on `s`",
    ),
];

#[test]
fn calls_are_modelled_or_inconclusive_never_assumed_pure() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, text, flags, code, want) in CASES {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let mut args = vec!["check"];
        args.extend_from_slice(flags);
        let (got, out) = run(&args, &path);
        let out = out.replace(&format!("{}/", dir.path().display()), "");
        if got != *code || !out.contains(want) {
            failures.push(format!("{name}: exit {got} (want {code}), want `{want}` in:\n{out}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}
