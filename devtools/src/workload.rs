//! Generated workloads for benchmarks: warp-specialized producer/consumer pipelines as CUDA text,
//! and the racy version of a kernel (the workload `fix` has).

use autosync_oracle::ir::{Kernel, StmtKind};
use autosync_oracle::tree::{for_each_stmt, remove_stmts};
use std::fmt::Write;

/// `k` with every block-wide barrier the user wrote removed (`None` when it has none): what
/// `fix` gets from an author who left them out.
pub fn without_barriers(k: &Kernel) -> Option<Kernel> {
    let mut labels = Vec::new();
    for_each_stmt(&k.body, &mut |s| {
        if matches!(&s.kind, StmtKind::Barrier(b, _) if b.is_block_wide()) && s.emit_after {
            labels.push(s.label);
        }
    });
    (!labels.is_empty()).then(|| remove_stmts(k, &labels))
}

/// Shape of a generated pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineShape {
    /// Warps per block (half produce, half consume; at least 2, at most 32).
    pub warps: u32,
    /// Pipeline stages (buffer slots), each with a "full" and an "empty" named barrier; 1..=7.
    pub stages: u32,
    /// Iterations of the producer and consumer loops.
    pub iterations: u32,
    /// Shared-memory accesses per stage per thread.
    pub accesses: u32,
    /// Leave out the consumers' release of a slot (a defect: unsafe reuse of the buffer).
    pub drop_release: bool,
}

impl PipelineShape {
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        self.warps * 32
    }
    /// Dynamic named-barrier operations executed by all warps together.
    pub fn dynamic_barriers(&self) -> u64 {
        // Every warp does one sync and one arrive per iteration, minus the pipeline fill/drain.
        let per_warp = 2 * self.iterations as u64 - self.stages.min(self.iterations) as u64;
        per_warp * self.warps as u64
    }
    /// Memory accesses (shared and global) executed by all threads together: producers load
    /// from global and store to shared, consumers load from shared and store one result.
    pub fn dynamic_accesses(&self) -> u64 {
        let producers = (self.warps / 2) as u64 * 32;
        let consumers = self.threads() as u64 - producers;
        let a = self.accesses as u64;
        self.iterations as u64 * (producers * 2 * a + consumers * (a + 1))
    }
}

/// Writes a warp-specialized pipeline kernel: producer warps fill slot `it % S` and arrive on its
/// "full" barrier; consumer warps sync on it, read, and arrive on the slot's "empty" barrier,
/// which producers sync on before refilling the slot `S` iterations later.
pub fn pipeline_kernel(s: &PipelineShape) -> String {
    assert!(
        (2..=32).contains(&s.warps) && (1..=7).contains(&s.stages),
        "shape out of range: {s:?}"
    );
    let producers = s.warps / 2;
    let pthreads = producers * 32;
    let n = s.threads();
    let mut out = String::new();
    let _ = writeln!(out, "//--blockDim={n} --gridDim=1");
    let _ = writeln!(
        out,
        "// Generated: {} warps ({} producers), {} stages, {} iterations, {} accesses per stage.",
        s.warps, producers, s.stages, s.iterations, s.accesses
    );
    let _ = writeln!(
        out,
        "#define STAGES {}\n#define ACC {}\n#define PT {pthreads}\n",
        s.stages, s.accesses
    );
    out.push_str(
        "__device__ void bar_sync(int id, int n) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }\n\
         __device__ void bar_arrive(int id, int n) { asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }\n\n",
    );
    let _ = writeln!(
        out,
        "__global__ void pipeline(const float *in, float *out, int iters)\n{{"
    );
    out.push_str("    __shared__ float buf[STAGES][ACC][PT];\n");
    out.push_str("    int warp = threadIdx.x / 32;\n    int t = threadIdx.x;\n");
    let _ = writeln!(out, "    if (warp < {producers}) {{");
    out.push_str("        for (int it = 0; it < iters; ++it) {\n");
    out.push_str("            int slot = it % STAGES;\n");
    let _ = writeln!(out, "            if (it >= STAGES) bar_sync(1 + STAGES + slot, {n});");
    out.push_str("            for (int a = 0; a < ACC; ++a) buf[slot][a][t] = in[(it * ACC + a) * PT + t];\n");
    let _ = writeln!(out, "            bar_arrive(1 + slot, {n});");
    out.push_str("        }\n    } else {\n");
    out.push_str("        int c = (t - PT + 1) % PT;\n");
    out.push_str("        for (int it = 0; it < iters; ++it) {\n");
    out.push_str("            int slot = it % STAGES;\n");
    let _ = writeln!(out, "            bar_sync(1 + slot, {n});");
    out.push_str("            float acc = 0.0f;\n");
    out.push_str("            for (int a = 0; a < ACC; ++a) acc += buf[slot][a][c];\n");
    out.push_str("            out[it * PT + c] = acc;\n");
    if !s.drop_release {
        let _ = writeln!(
            out,
            "            if (it + STAGES < iters) bar_arrive(1 + STAGES + slot, {n});"
        );
    }
    out.push_str("        }\n    }\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use autosync::front::{lower_text, FrontOptions};
    use autosync_oracle::named;

    fn check(shape: &PipelineShape) -> autosync_oracle::report::Report {
        let text = pipeline_kernel(shape);
        let opts = FrontOptions {
            params: [("iters".to_string(), shape.iterations as i64)].into(),
            ..Default::default()
        };
        let unit = lower_text(std::path::Path::new("gen.cu"), &text, &opts).expect("generated kernel lowers");
        named::check(&unit.kernels[0], &named::NamedOptions::default())
    }

    #[test]
    fn small_pipeline_verifies_and_its_defect_is_found() {
        let shape = PipelineShape {
            warps: 4,
            stages: 2,
            iterations: 6,
            accesses: 3,
            drop_release: false,
        };
        let r = check(&shape);
        assert!(r.is_clean(), "{r:#?}");
        assert_eq!(shape.dynamic_accesses(), 6 * (64 * 2 * 3 + 64 * 4));
        let bad = check(&PipelineShape {
            drop_release: true,
            ..shape
        });
        assert!(!bad.is_clean(), "dropping the release must be reported");
    }
}

/// The shape of a generated mbarrier ring (issue 26's scale target: 4 stages, one producer
/// warp, two consumer warpgroups, 64 iterations).
#[derive(Clone, Copy, Debug)]
pub struct RingShape {
    /// Stages in the ring (each with a "full" and an "empty" mbarrier).
    pub stages: u32,
    /// Consumer warpgroups (128 threads each); warp 0 is the producer.
    pub consumer_groups: u32,
    /// Iterations of the producer and consumer loops.
    pub iterations: u32,
    /// Leave out the consumers' release arrive on "empty" (a deadlock from iteration `stages`).
    pub drop_release: bool,
}

impl RingShape {
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        32 + 128 * self.consumer_groups
    }
}

/// CUDA text of an mbarrier ring: lane 0 of warp 0 waits for a free stage, announces the bytes
/// and issues a bulk copy completing on the stage's "full" mbarrier; every consumer thread
/// waits on "full" with the ring's phase bit, sums its column of the stage and arrives on
/// "empty" (one arrival per consumer thread).
pub fn ring_kernel(s: &RingShape) -> String {
    let consumers = 128 * s.consumer_groups;
    let release = if s.drop_release {
        ""
    } else {
        "            asm volatile(\"mbarrier.arrive.shared::cta.b64 _, [%0];\" :: \"r\"(addr(&empty[st])) : \"memory\");\n"
    };
    format!(
        r#"//--blockDim={threads} --gridDim=1
#define STAGES {stages}
#define CONSUMERS {consumers}
#define TILE (CONSUMERS * 4)

__device__ __forceinline__ unsigned addr(const void *p) {{ return (unsigned)__cvta_generic_to_shared(p); }}

__device__ void wait_parity(unsigned long long *bar, unsigned parity)
{{
    asm volatile("{{\n"
                 " .reg .pred ok;\n"
                 "AGAIN:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n"
                 " @!ok bra AGAIN;\n"
                 "}}" :: "r"(addr(bar)), "r"(parity) : "memory");
}}

__global__ void ring(const float *in, float *out, int iters)
{{
    __shared__ __align__(128) float stage[STAGES][TILE];
    __shared__ unsigned long long full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {{
        for (int st = 0; st < STAGES; ++st) {{
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr(&full[st])), "r"(1) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr(&empty[st])), "r"(CONSUMERS) : "memory");
        }}
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }}
    __syncthreads();
    if (threadIdx.x < 32) {{
        if (threadIdx.x == 0) {{
            for (int k = 0; k < iters; ++k) {{
                int st = k % STAGES;
                wait_parity(&empty[st], ((k / STAGES) & 1) ^ 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(addr(&full[st])), "r"(TILE * 4) : "memory");
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                             :: "r"(addr(stage[st])), "l"(in + k * TILE), "r"(TILE * 4), "r"(addr(&full[st])) : "memory");
            }}
        }}
    }} else {{
        int c = threadIdx.x - 32;
        for (int k = 0; k < iters; ++k) {{
            int st = k % STAGES;
            wait_parity(&full[st], (k / STAGES) & 1);
            float acc = 0;
            for (int i = c; i < TILE; i += CONSUMERS)
                acc += stage[st][i];
            out[k * CONSUMERS + c] = acc;
{release}        }}
    }}
}}
"#,
        threads = s.threads(),
        stages = s.stages,
    )
}
