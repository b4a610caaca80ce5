//! Inline PTX as libraries write it: every instruction is modelled (barriers with immediate or
//! register operands, accesses with their widths and spaces, the end of a thread's path,
//! special registers, warp-collective values) or the kernel is inconclusive naming it. Each
//! case here would have checked clean, or lost an effect, if the asm reader skipped it.

use crate::common::run;

/// (name, kernel body after `__shared__ unsigned s[64]; unsigned t = threadIdx.x;`, exit code
/// of `check`, a fragment of its output).
type Case = (&'static str, &'static str, i32, &'static str);

const CASES: &[Case] = &[
    // An instruction autosync does not know.
    (
        "unknown.cu",
        "s[t] = 1;\n  asm volatile(\"frob.b32 %0, %0;\" : \"+r\"(t));\n  o[t] = s[63 - t];",
        4,
        "inline PTX `frob.b32`",
    ),
    // The known bug: `mbarrier.init.shared:` read as a label, the statement lowered to nothing.
    // Now an initialization, which every thread repeats on one object.
    (
        "mbarrier_init.cu",
        "__shared__ unsigned long long bar;\n  asm volatile(\"mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&bar)), \"r\"(32) : \"memory\");\n  o[t] = s[t];",
        4,
        "bar is initialized again while in use",
    ),
    // An asynchronous copy nobody waits for races with the read of its destination.
    (
        "cp_async.cu",
        "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[t])), \"l\"(o + t));\n  o[t] = s[t];",
        1,
        "race (RAW) on `s`",
    ),
    (
        "cp_async_waited.cu",
        "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[t])), \"l\"(o + t));\n  asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n  o[t] = s[t];",
        0,
        "",
    ),
    (
        "tma_tensor.cu",
        "__shared__ unsigned long long bar;\n  asm volatile(\"cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"l\"(o), \"r\"(0), \"r\"((unsigned)__cvta_generic_to_shared(&bar)) : \"memory\");\n  o[t] = s[t];",
        4,
        "a TMA tensor load whose box the host's tensor map decides, with no transaction bytes",
    ),
    (
        "tma_multicast.cu",
        "__shared__ unsigned long long bar;\n  asm volatile(\"cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2}], [%3], %4;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"l\"(o), \"r\"(0), \"r\"((unsigned)__cvta_generic_to_shared(&bar)), \"h\"((unsigned short)3) : \"memory\");\n  o[t] = s[t];",
        4,
        "writes the shared memory of several blocks of the cluster",
    ),
    (
        "tma_store.cu",
        "s[t] = t;\n  asm volatile(\"cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];\" :: \"l\"(o), \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"r\"(0) : \"memory\");\n  o[t] = s[t];",
        4,
        "the box a TMA tensor store reads",
    ),
    (
        "wmma_load.cu",
        "unsigned a;\n  asm volatile(\"wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%0}, [%1];\" : \"=r\"(a) : \"r\"((unsigned)__cvta_generic_to_shared(&s[0])));\n  o[t] = a;",
        4,
        "accesses memory in a way autosync does not model",
    ),
    // A matrix shape whose rows autosync does not know.
    (
        "ldmatrix_b6.cu",
        "unsigned a, b, c, d;\n  asm volatile(\"ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32 {%0,%1,%2,%3}, [%4];\" : \"=r\"(a), \"=r\"(b), \"=r\"(c), \"=r\"(d) : \"r\"((unsigned)__cvta_generic_to_shared(&s[0])));\n  o[t] = a;",
        4,
        "this shape or type is not modelled",
    ),
    // ldmatrix reads the 16-byte row each of the first 8 lanes names (x1): lane 0's row is
    // elements 0..3, written by threads 1..3 without a barrier.
    (
        "ldmatrix_x1.cu",
        "s[t] = t;\n  unsigned a;\n  asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(a) : \"r\"((unsigned)__cvta_generic_to_shared(&s[(t % 32) * 4])));\n  o[t] = a;",
        1,
        "race (RAW) on `s`",
    ),
    // The addresses lanes 8.. give an x1 name no row: warp 0's lanes 8..31 name the elements
    // they write, which no row holds.
    (
        "ldmatrix_x1_lanes.cu",
        "if (t >= 8 && t < 32) s[32 + t] = t;\n  unsigned a;\n  asm volatile(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(a) : \"r\"((unsigned)__cvta_generic_to_shared(t % 32 < 8 ? &s[(t % 32) * 4] : t < 32 ? &s[32 + t] : &s[0])));\n  o[t] = a;",
        0,
        "clean",
    ),
    (
        "cluster_store.cu",
        "asm volatile(\"st.shared::cluster.u32 [%0], %1;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[t])), \"r\"(t));\n  o[t] = s[t];",
        4,
        "`shared::cluster` state space",
    ),
    (
        "cluster_barrier.cu",
        "s[t] = 1;\n  asm volatile(\"barrier.cluster.arrive;\\n\\tbarrier.cluster.wait;\" ::: \"memory\");\n  o[t] = s[63 - t];",
        4,
        "inline PTX `barrier.cluster.arrive`",
    ),
    // A branch inside the asm around an access: whether it runs is unknown.
    (
        "branch_store.cu",
        "asm volatile(\"{\\n .reg .pred p;\\n setp.eq.u32 p, %1, 0;\\n @p bra SKIP;\\n st.shared.u32 [%0], %1;\\n SKIP:\\n }\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"r\"(t));\n  o[t] = s[t];",
        4,
        "control flow inside inline asm decides whether `st.shared.u32 [%0], %1` runs",
    ),
    // `exit` ends every thread's path: the read after it never happens.
    (
        "exit_all.cu",
        "s[t] = 1;\n  asm volatile(\"exit;\");\n  o[t] = s[63 - t];",
        0,
        "",
    ),
    // `@p exit` with p computed from an operand: thread 0 leaves, the others reach the barrier.
    (
        "exit_guarded.cu",
        "s[t] = 1;\n  asm volatile(\"{ .reg .pred p; setp.eq.u32 p, %0, 0; @p exit; }\" :: \"r\"(t));\n  __syncthreads();\n  o[t] = s[63 - t];",
        1,
        "divergence",
    ),
    // `brkpt` behind an unknown predicate: some threads may stop, so the barrier may diverge.
    (
        "brkpt_unknown.cu",
        "s[t] = 1;\n  asm volatile(\"{ .reg .pred p; ld.shared.u32 %0, [%1]; setp.ne.u32 p, %0, 0; @p brkpt; }\" : \"=r\"(t) : \"r\"((unsigned)__cvta_generic_to_shared(&s[0])));\n  __syncthreads();\n  o[threadIdx.x] = s[63 - threadIdx.x];",
        1,
        "divergence",
    ),
    // `trap` in a helper ends the kernel's path too.
    (
        "trap_helper.cu",
        "s[t] = 1;\n  if (o[0] == 7) fail();\n  o[t] = s[63 - t];",
        1,
        "race (RAW) on `s`",
    ),
    // Guarded store, predicate from operands: only thread 0 writes s[0]; no one else reads it.
    (
        "guarded_store_known.cu",
        "asm volatile(\"{ .reg .pred p; setp.eq.u32 p, %1, 0; @p st.shared.u32 [%0], %1; }\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"r\"(t));\n  o[t] = s[1 + t % 63];",
        0,
        "",
    ),
    // Guarded store, unknown predicate: any thread may write s[0].
    (
        "guarded_store_unknown.cu",
        "unsigned v = o[t];\n  asm volatile(\"{ .reg .pred p; setp.ne.u32 p, %1, 0; @p st.shared.u32 [%0], %1; }\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])), \"r\"(v));\n  o[t] = s[1 + t % 63];",
        1,
        "race (WAW) on `s`",
    ),
    // Barriers with immediate and register operands.
    (
        "barrier_sync_imm.cu",
        "s[t] = 1;\n  asm volatile(\"barrier.sync 0;\" ::: \"memory\");\n  o[t] = s[63 - t];",
        0,
        "",
    ),
    (
        "bar_red.cu",
        "s[t] = 1;\n  unsigned n;\n  asm volatile(\"{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 0, p; }\" : \"=r\"(n) : \"r\"(t));\n  o[t] = s[63 - t] + n;",
        0,
        "",
    ),
    (
        "bar_arrive_regs.cu",
        "s[t] = 1;\n  unsigned id = 1, n = 64;\n  if (t < 32) asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\");\n  else asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\");\n  if (t >= 32) o[t] = s[t - 32];",
        0,
        "",
    ),
    (
        "warp_sync.cu",
        "s[t] = 1;\n  asm volatile(\"bar.warp.sync -1;\" ::: \"memory\");\n  o[t] = s[t ^ 1];",
        0,
        "",
    ),
    // Fences order memory; they do not synchronize threads.
    (
        "fence.cu",
        "s[t] = 1;\n  asm volatile(\"membar.cta;\\n\\tfence.acq_rel.gpu;\\n\\tfence.proxy.async.shared::cta;\" ::: \"memory\");\n  o[t] = s[63 - t];",
        1,
        "race (RAW) on `s`",
    ),
    // %laneid is the linear thread id modulo 32: a barrier under `lane < 32` is uniform, one
    // under `lane == 0` diverges.
    (
        "laneid_uniform.cu",
        "unsigned lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n  s[t] = 1;\n  if (lane < 32) __syncthreads();\n  o[t] = s[63 - t];",
        0,
        "",
    ),
    (
        "laneid_divergent.cu",
        "unsigned lane;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n  s[t] = 1;\n  if (lane == 0) __syncthreads();\n  o[t] = s[63 - t];",
        1,
        "divergence",
    ),
    // %warpid is a physical slot: unknown per thread.
    (
        "warpid.cu",
        "unsigned w;\n  asm volatile(\"mov.u32 %0, %%warpid;\" : \"=r\"(w));\n  s[t] = 1;\n  if (w == 0) __syncthreads();\n  o[t] = s[63 - t];",
        1,
        "divergence",
    ),
    // A shuffle's result differs per thread.
    (
        "shfl.cu",
        "unsigned v;\n  asm volatile(\"shfl.sync.bfly.b32 %0, %1, 1, 0x1f, -1;\" : \"=r\"(v) : \"r\"(t));\n  s[t] = 1;\n  if (v == 3) __syncthreads();\n  o[t] = s[63 - t];",
        1,
        "divergence",
    ),
    // Atomics with widths and scopes; `red` against a plain read races.
    (
        "red_vs_read.cu",
        "asm volatile(\"red.relaxed.cta.shared::cta.add.u32 [%0], 1;\" :: \"r\"((unsigned)__cvta_generic_to_shared(&s[0])) : \"memory\");\n  o[t] = s[0];",
        1,
        "on `s`",
    ),
    // A 16-byte vector load reaches the neighbouring elements.
    (
        "ld_v4.cu",
        "s[t] = 1;\n  unsigned a, b, c, d;\n  if (t % 4 == 0) asm volatile(\"ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\" : \"=r\"(a), \"=r\"(b), \"=r\"(c), \"=r\"(d) : \"r\"((unsigned)__cvta_generic_to_shared(&s[t])));\n  o[t] = a + b + c + d;",
        1,
        "race (RAW) on `s`",
    ),
];

#[test]
fn every_ptx_instruction_is_modelled_or_inconclusive() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, body, code, want) in CASES {
        let path = dir.path().join(name);
        let text = format!(
            "//--blockDim=64 --gridDim=1\n__device__ void fail() {{ asm volatile(\"trap;\"); }}\n__global__ void k(unsigned *o) {{\n  __shared__ unsigned s[64];\n  unsigned t = threadIdx.x;\n  {body}\n}}\n"
        );
        std::fs::write(&path, text).unwrap();
        let (got, out) = run(&["check"], &path);
        let out = out.replace(&format!("{}/", dir.path().display()), "");
        if got != *code || !out.contains(want) {
            failures.push(format!("{name}: exit {got} (want {code}), want `{want}` in:\n{out}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
}

/// A header's asm that Clang refuses (an operand number past the last operand) stops only
/// the kernel that reaches it: in the branch of `if constexpr` an instantiation discards it
/// is never compiled, as under nvcc, and the kernel taking that branch is inconclusive
/// naming it, while the other keeps its verdict (here: a race).
#[test]
fn refused_asm_in_a_header_stops_only_the_kernel_that_reaches_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("st.h"),
        "template <int P> __device__ void put(unsigned *p, unsigned v) {\n  if constexpr (P == 0) {\n    *p = v;\n  } else {\n    asm volatile(\"st.u32 [%0], %2;\" :: \"l\"(p), \"r\"(v));\n  }\n}\ntemplate <int P> __device__ void put2(unsigned *p, unsigned v) {\n  if (v < 64)\n    asm volatile(\"st.u32 [%0], %2;\" :: \"l\"(p), \"r\"(v));\n}\n",
    )
    .unwrap();
    let f = d.path().join("k.cu");
    std::fs::write(
        &f,
        "//--blockDim=64 --gridDim=1\n#include \"st.h\"\n__global__ void plain(unsigned *o) {\n  __shared__ unsigned s[64];\n  put<0>(&s[threadIdx.x], threadIdx.x);\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n__global__ void via_asm(unsigned *o) {\n  __shared__ unsigned s[64];\n  put<1>(&s[threadIdx.x], threadIdx.x);\n  __syncthreads();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n__global__ void unbraced(unsigned *o) {\n  __shared__ unsigned s[64];\n  put2<0>(&s[threadIdx.x], threadIdx.x);\n  __syncthreads();\n  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n",
    )
    .unwrap();
    let (code, out) = run(&["check", "--no-cache"], &f);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("kernel `plain` (sdv checker): 1 race") && out.contains("data race (RAW)"),
        "{out}"
    );
    assert!(
        out.contains("kernel `via_asm`") && out.contains("Clang refused this inline asm: invalid operand number"),
        "{out}"
    );
    // An unbraced branch whose asm Clang dropped is not an empty branch.
    assert!(out.contains("kernel `unbraced` (not lowered): inconclusive"), "{out}");
}
