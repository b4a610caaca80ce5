//! Random async-pipeline kernels for differential testing (issue 26): mbarrier rings of 1–4
//! stages between a producer warp and 1–3 consumer warps, with "full" and "empty" mbarriers
//! per stage (filled by bulk copies, plain stores or Ampere `cp.async` copies whose landing
//! arrives on "full" through `cp.async.mbarrier.arrive`), consumers that combine partial results between named barriers, and at most one
//! injected defect. [`generate_pipeline`] draws one from a seed; [`GenPipeline::to_cuda`]
//! prints it as CUDA text with inline PTX (lowered by the tests like any user file).

use crate::gen::Rng;
use std::fmt::Write;

/// How the producer fills a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Producer {
    /// Lane 0 arrives with `expect_tx` and issues a bulk copy completing on "full".
    Bulk,
    /// Lane 0 announces the bytes with `mbarrier.expect_tx`, issues the copy, then arrives.
    BulkSplitTx,
    /// Every lane of the producer warp stores its part and arrives on "full" (count 32).
    Stores,
    /// Every lane copies its part with 4-byte `cp.async`s, then `cp.async.mbarrier.arrive`
    /// (which raises the pending count) and a plain arrive on "full" (count 32).
    CpAsync,
    /// As `CpAsync` with `cp.async.mbarrier.arrive.noinc` (one of the 32) and no plain arrive.
    CpAsyncNoinc,
}

impl Producer {
    /// Whether every lane of the producer warp fills (and arrives), not lane 0 alone.
    fn per_lane(self) -> bool {
        matches!(self, Producer::Stores | Producer::CpAsync | Producer::CpAsyncNoinc)
    }

    /// Whether the stage is filled by `cp.async` copies.
    fn cp_async(self) -> bool {
        matches!(self, Producer::CpAsync | Producer::CpAsyncNoinc)
    }
}

/// How consumers hand a stage back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Every consumer thread arrives on "empty".
    PerThread,
    /// Lane 0 of each consumer warp arrives after a `__syncwarp()`.
    PerWarp,
}

/// How consumer threads order the exchange of their partial sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// They do not exchange them.
    No,
    /// Named barriers 1 and 2 over the consumer threads.
    Named,
    /// An mbarrier of their own: arrive keeping the token, spin on `test_wait` with it.
    Token,
}

/// A defect injected into an otherwise correct ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// Consumers never arrive on "empty".
    MissingRelease,
    /// Consumers arrive on "empty" twice.
    DoubleRelease,
    /// The producer does not wait on "empty" before refilling a stage.
    MissingProducerWait,
    /// Consumers do not wait on "full" before reading a stage.
    MissingConsumerWait,
    /// The consumers' (or the producer's) parity is flipped.
    WrongParity {
        /// Whether the consumers' wait is the wrong one (else the producer's).
        consumer: bool,
    },
    /// The bytes announced with `expect_tx` are half (or twice) the bytes copied.
    WrongTx {
        /// Twice rather than half.
        double: bool,
    },
    /// No `__syncthreads()` between the initialization of the mbarriers and their use.
    MissingInitSync,
    /// The consumers arrive (`bar.arrive`, or an mbarrier arrive without the wait) where they
    /// should wait before reading partials.
    ArriveInsteadOfSync,
    /// The consumers' second barrier (before partials are overwritten) is left out.
    MissingNamedSync,
    /// A `cp.async` producer arrives on "full" with a plain arrive instead of
    /// `cp.async.mbarrier.arrive`: the stage is announced before its copies land.
    ArriveBeforeCopiesLand,
}

/// A generated pipeline kernel.
#[derive(Clone, Debug)]
pub struct GenPipeline {
    /// The seed it was drawn from.
    pub seed: u64,
    /// Stages of the ring (1..=4).
    pub stages: u32,
    /// Consumer warps (1..=3); warp 0 produces.
    pub consumers: u32,
    /// Iterations of both role loops.
    pub iters: u32,
    /// Elements of a stage per consumer thread (1 or 2).
    pub per_thread: u32,
    /// How stages are filled.
    pub producer: Producer,
    /// How stages are released.
    pub release: Release,
    /// Whether (and how) consumers exchange partial sums.
    pub combine: Combine,
    /// The injected defect, if any.
    pub defect: Option<Defect>,
}

/// Draws a pipeline from `seed`; about a third are correct.
pub fn generate_pipeline(seed: u64) -> GenPipeline {
    let mut r = Rng::new(seed);
    let stages = r.range(1, 4) as u32;
    let producer = *r.pick(&[
        Producer::Bulk,
        Producer::BulkSplitTx,
        Producer::Stores,
        Producer::CpAsync,
        Producer::CpAsyncNoinc,
    ]);
    let mut g = GenPipeline {
        seed,
        stages,
        consumers: r.range(1, 3) as u32,
        iters: r.range(1, 2 * stages as i64 + 1) as u32,
        per_thread: r.range(1, 2) as u32,
        producer,
        release: *r.pick(&[Release::PerThread, Release::PerWarp]),
        combine: *r.pick(&[Combine::No, Combine::Named, Combine::Named, Combine::Token]),
        defect: None,
    };
    if r.chance(66) {
        g.defect = Some(draw_defect(&mut r, &g));
    }
    g
}

fn draw_defect(r: &mut Rng, g: &GenPipeline) -> Defect {
    let mut all = vec![
        Defect::MissingRelease,
        Defect::DoubleRelease,
        Defect::MissingProducerWait,
        Defect::MissingConsumerWait,
        Defect::WrongParity { consumer: true },
        Defect::WrongParity { consumer: false },
        Defect::MissingInitSync,
    ];
    if !g.producer.per_lane() {
        all.extend([Defect::WrongTx { double: false }, Defect::WrongTx { double: true }]);
    }
    if g.producer.cp_async() {
        all.push(Defect::ArriveBeforeCopiesLand);
    }
    if g.combine != Combine::No {
        all.extend([Defect::ArriveInsteadOfSync, Defect::MissingNamedSync]);
    }
    *r.pick(&all)
}

/// The PTX helpers every generated kernel uses.
const HELPERS: &str = r#"__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ void mb_init(unsigned long long *b, unsigned n)
{ asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(n) : "memory"); }

__device__ void mb_arrive(unsigned long long *b)
{ asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem(b)) : "memory"); }

__device__ void mb_arrive_tx(unsigned long long *b, unsigned bytes)
{ asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(b)), "r"(bytes) : "memory"); }

__device__ void mb_expect_tx(unsigned long long *b, unsigned bytes)
{ asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], %1;" :: "r"(smem(b)), "r"(bytes) : "memory"); }

__device__ void mb_wait(unsigned long long *b, unsigned parity)
{
    asm volatile("{\n"
                 " .reg .pred ok;\n"
                 "WAIT:\n"
                 " mbarrier.try_wait.parity.shared::cta.b64 ok, [%0], %1;\n"
                 " @!ok bra WAIT;\n"
                 "}" :: "r"(smem(b)), "r"(parity) : "memory");
}

__device__ void bulk_copy(float *dst, const float *src, unsigned bytes, unsigned long long *b)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(b)) : "memory");
}

__device__ void copy4(float *dst, const float *src)
{ asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem(dst)), "l"(src) : "memory"); }

__device__ void copies_arrive(unsigned long long *b)
{ asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(smem(b)) : "memory"); }

__device__ void copies_arrive_noinc(unsigned long long *b)
{ asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem(b)) : "memory"); }

__device__ void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory"); }
__device__ void named_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(n) : "memory"); }
"#;

impl GenPipeline {
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        32 * (1 + self.consumers)
    }

    fn has(&self, d: Defect) -> bool {
        self.defect == Some(d)
    }

    /// The kernel as CUDA text.
    pub fn to_cuda(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "//--blockDim={} --gridDim=1", self.threads());
        let _ = writeln!(o, "// Generated pipeline, seed {}: {self:?}", self.seed);
        let ct = 32 * self.consumers;
        let _ = writeln!(
            o,
            "#define STAGES {}\n#define ITERS {}\n#define CT {ct}\n#define TILE {}\n",
            self.stages,
            self.iters,
            ct * self.per_thread
        );
        o.push_str(HELPERS);
        o.push_str("\n__global__ void ring(const float *in, float *out)\n{\n");
        o.push_str("    __shared__ __align__(128) float stage[STAGES][TILE];\n");
        o.push_str("    __shared__ float partial[CT];\n");
        o.push_str("    __shared__ unsigned long long full[STAGES], empty[STAGES];\n");
        o.push_str("    __shared__ long sum_bar;\n");
        o.push_str("    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n");
        self.init(&mut o);
        o.push_str("    if (warp == 0) {\n");
        self.produce(&mut o);
        o.push_str("    } else {\n");
        self.consume(&mut o);
        o.push_str("    }\n}\n");
        o
    }

    fn init(&self, o: &mut String) {
        let full_count = if self.producer.per_lane() { 32 } else { 1 };
        let empty_count = match self.release {
            Release::PerThread => "CT".to_string(),
            Release::PerWarp => self.consumers.to_string(),
        };
        o.push_str("    if (threadIdx.x == 0) {\n        for (int s = 0; s < STAGES; ++s) {\n");
        let _ = writeln!(o, "            mb_init(&full[s], {full_count});");
        let _ = writeln!(o, "            mb_init(&empty[s], {empty_count});");
        o.push_str("        }\n");
        if self.combine == Combine::Token {
            o.push_str("        __nvvm_mbarrier_init(&sum_bar, CT);\n");
        }
        o.push_str("        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n    }\n");
        if !self.has(Defect::MissingInitSync) {
            o.push_str("    __syncthreads();\n");
        }
    }

    /// The parity expression a role waits with (`flip` for the producer's "empty" wait).
    fn parity(&self, flip: bool) -> &'static str {
        if flip {
            "((k / STAGES) & 1) ^ 1"
        } else {
            "(k / STAGES) & 1"
        }
    }

    fn produce(&self, o: &mut String) {
        let per_lane = self.producer.per_lane();
        if !per_lane {
            o.push_str("        if (lane == 0) {\n");
        }
        o.push_str("        for (int k = 0; k < ITERS; ++k) {\n            int s = k % STAGES;\n");
        if !self.has(Defect::MissingProducerWait) {
            let flip = !self.has(Defect::WrongParity { consumer: false });
            let _ = writeln!(o, "            mb_wait(&empty[s], {});", self.parity(flip));
        }
        let bytes = match self.defect {
            Some(Defect::WrongTx { double: true }) => "TILE * 8",
            Some(Defect::WrongTx { double: false }) => "TILE * 2",
            _ => "TILE * 4",
        };
        let copy = "            bulk_copy(stage[s], in + k * TILE, TILE * 4, &full[s]);\n";
        match self.producer {
            Producer::Bulk => {
                let _ = writeln!(o, "            mb_arrive_tx(&full[s], {bytes});");
                o.push_str(copy);
            }
            Producer::BulkSplitTx => {
                let _ = writeln!(o, "            mb_expect_tx(&full[s], {bytes});");
                o.push_str(copy);
                o.push_str("            mb_arrive(&full[s]);\n");
            }
            Producer::Stores => {
                o.push_str("            for (int i = lane; i < TILE; i += 32)\n");
                o.push_str("                stage[s][i] = in[k * TILE + i];\n");
                o.push_str("            mb_arrive(&full[s]);\n");
            }
            Producer::CpAsync | Producer::CpAsyncNoinc => self.produce_cp_async(o),
        }
        o.push_str("        }\n");
        if !per_lane {
            o.push_str("        }\n");
        }
    }

    /// Each lane's `cp.async` copies of its part, then the arrival their landing makes.
    fn produce_cp_async(&self, o: &mut String) {
        o.push_str("            for (int i = lane; i < TILE; i += 32)\n");
        o.push_str("                copy4(&stage[s][i], in + k * TILE + i);\n");
        if self.has(Defect::ArriveBeforeCopiesLand) {
            o.push_str("            mb_arrive(&full[s]);\n");
        } else if self.producer == Producer::CpAsyncNoinc {
            o.push_str("            copies_arrive_noinc(&full[s]);\n");
        } else {
            o.push_str("            copies_arrive(&full[s]);\n            mb_arrive(&full[s]);\n");
        }
    }

    fn consume(&self, o: &mut String) {
        o.push_str("        int c = threadIdx.x - 32;\n");
        o.push_str("        for (int k = 0; k < ITERS; ++k) {\n            int s = k % STAGES;\n");
        if !self.has(Defect::MissingConsumerWait) {
            let flip = self.has(Defect::WrongParity { consumer: true });
            let _ = writeln!(o, "            mb_wait(&full[s], {});", self.parity(flip));
        }
        o.push_str("            float acc = 0;\n            for (int i = c; i < TILE; i += CT)\n");
        o.push_str("                acc += stage[s][i];\n");
        self.release(o);
        match self.combine {
            Combine::No => o.push_str("            out[k * CT + c] = acc;\n"),
            _ => self.combine_partials(o),
        }
        o.push_str("        }\n");
    }

    fn release(&self, o: &mut String) {
        let times = match self.defect {
            Some(Defect::MissingRelease) => 0,
            Some(Defect::DoubleRelease) => 2,
            _ => 1,
        };
        let arrive = "mb_arrive(&empty[s]);";
        for _ in 0..times {
            match self.release {
                Release::PerThread => {
                    let _ = writeln!(o, "            {arrive}");
                }
                Release::PerWarp => {
                    let _ = writeln!(o, "            __syncwarp();\n            if (lane == 0) {arrive}");
                }
            }
        }
    }

    /// Every consumer thread publishes its sum; after a first barrier each reads its
    /// neighbour's (another thread's), and a second keeps the next iteration's publication
    /// off it.
    fn combine_partials(&self, o: &mut String) {
        o.push_str("            partial[c] = acc;\n");
        let arrive_only = self.has(Defect::ArriveInsteadOfSync);
        self.consumer_barrier(o, 1, arrive_only);
        o.push_str("            out[k * CT + c] = partial[(c + 1) % CT];\n");
        if !self.has(Defect::MissingNamedSync) {
            self.consumer_barrier(o, 2, false);
        }
    }

    /// A barrier over the consumer threads: named barrier `id`, or an arrive and a spin on
    /// the token on `sum_bar`.
    fn consumer_barrier(&self, o: &mut String, id: u32, arrive_only: bool) {
        let _ = match (self.combine, arrive_only) {
            (Combine::Token, true) => writeln!(o, "            (void)__nvvm_mbarrier_arrive(&sum_bar);"),
            (Combine::Token, false) => writeln!(
                o,
                "            {{\n                long tok = __nvvm_mbarrier_arrive(&sum_bar);\n                while (!__nvvm_mbarrier_test_wait(&sum_bar, tok)) {{\n                }}\n            }}"
            ),
            (_, true) => writeln!(o, "            named_arrive({id}, CT);"),
            (_, false) => writeln!(o, "            named_sync({id}, CT);"),
        };
    }
}
