//! Generated Singe-shaped kernels for the checkers' scale benchmark: long straight-line
//! arithmetic in warp-specialized roles, exchanging values through shared memory.
//!
//! The shape follows what generated combustion kernels look like (thousands of lines of
//! straight-line floating-point code, written warp-synchronously, one role per warp, values
//! handed between warps through shared memory): every warp computes a phase of arithmetic on
//! its registers, publishes some of them in its slots of a shared exchange buffer, and reads a
//! partner warp's slots. With named barriers, the hand-off is a producer/consumer pair
//! (`bar.arrive id, 64` after the stores, `bar.sync id, 64` before the partner's loads) with
//! IDs 1..=15 reused across phases, and a block-wide `bar.sync 0` ends each phase so that slots
//! and IDs can be reused; the `bar.sync 0`-only variant uses `__syncthreads()` for both.

use std::fmt::Write;

/// Shape of a generated Singe-style kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SingeShape {
    /// Warps per block, one role each (2..=15 with named barriers, 2..=32 without).
    pub warps: u32,
    /// Phases (each: arithmetic, publish, hand-off, read back).
    pub phases: u32,
    /// Arithmetic statements per warp per phase.
    pub lines: u32,
    /// Shared-memory slots each warp publishes per phase.
    pub slots: u32,
    /// Named-barrier hand-offs (`false`: only `__syncthreads()`).
    pub named: bool,
}

impl SingeShape {
    /// The benchmark's default: 12 warps, 24 phases of 18 arithmetic lines and 3 slots each
    /// (about 7,000 lines of code).
    pub fn default_named() -> SingeShape {
        SingeShape {
            warps: 12,
            phases: 24,
            lines: 18,
            slots: 3,
            named: true,
        }
    }
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        self.warps * 32
    }
    /// The warp whose slots warp `w` reads in phase `p` (never itself).
    pub fn partner(&self, w: u32, p: u32) -> u32 {
        (w + 1 + p % (self.warps - 1)) % self.warps
    }
    /// The named barrier (1..=15) warp `w` arrives on in phase `p`: IDs rotate over the phases,
    /// so every ID is used by many hand-offs.
    pub fn barrier_id(&self, w: u32, p: u32) -> u32 {
        (p * self.warps + w) % 15 + 1
    }
}

/// Registers every role computes with.
const REGS: u32 = 8;

/// The arithmetic of line `i` of warp `w` in phase `p` (a deterministic mix of the registers).
fn arith_line(out: &mut String, w: u32, p: u32, i: u32) {
    let seed = w.wrapping_mul(7919) ^ p.wrapping_mul(104_729) ^ i.wrapping_mul(1_299_709);
    let dst = seed % REGS;
    let a = (seed / REGS) % REGS;
    let b = (seed / (REGS * REGS)) % REGS;
    let c = 1.0 + (seed % 97) as f64 / 64.0;
    let _ = match seed % 3 {
        0 => writeln!(out, "        r{dst} = r{a} * {c:.6} + r{b};"),
        1 => writeln!(out, "        r{dst} = (r{a} - r{b}) * {c:.6};"),
        _ => writeln!(out, "        r{dst} = r{a} * r{b} + {c:.6};"),
    };
}

/// Writes the kernel for `s`. Check it with `--warp-sync 32` (the code is warp-synchronous).
pub fn singe_kernel(s: &SingeShape) -> String {
    // One ID per warp and phase among 1..=15.
    let max_warps = if s.named { 15 } else { 32 };
    assert!(
        (2..=max_warps).contains(&s.warps) && s.slots >= 1,
        "shape out of range: {s:?}"
    );
    let n = s.threads();
    let mut out = String::new();
    let _ = writeln!(out, "//--blockDim={n} --gridDim=1 --warp-sync=32");
    let _ = writeln!(
        out,
        "// Generated Singe-style kernel: {} warps, {} phases of {} lines, {} slots, {}.",
        s.warps,
        s.phases,
        s.lines,
        s.slots,
        if s.named { "named barriers" } else { "bar.sync 0 only" }
    );
    let _ = writeln!(out, "#define NW {}\n#define SLOTS {}\n", s.warps, s.slots);
    if s.named {
        out.push_str(
            "__device__ __forceinline__ void bar_sync(int id, int n) { asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }\n\
             __device__ __forceinline__ void bar_arrive(int id, int n) { asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(n) : \"memory\"); }\n\n",
        );
    }
    out.push_str("__global__ void singe(const double *in, double *out, int stride)\n{\n");
    // Species rows hold one value per point of the grid.
    out.push_str("    __requires(stride >= (int)gridDim.x * 32 && stride <= 65536);\n");
    out.push_str("    __shared__ double xch[NW][SLOTS][32];\n");
    out.push_str("    int warp = threadIdx.x / 32;\n    int lane = threadIdx.x % 32;\n");
    out.push_str("    int point = blockIdx.x * 32 + lane;\n");
    for r in 0..REGS {
        let _ = writeln!(out, "    double r{r} = in[({r} * NW + warp) * stride + point];");
    }
    for p in 0..s.phases {
        let _ = writeln!(out, "    // phase {p}");
        for w in 0..s.warps {
            let _ = writeln!(out, "    if (warp == {w}) {{");
            publish(&mut out, s, w, p);
            if s.named {
                // The warp that reads my slots waits for my arrival; I wait for the warp whose
                // slots I read.
                let _ = writeln!(out, "        bar_arrive({}, 64);", s.barrier_id(w, p));
                let _ = writeln!(out, "        bar_sync({}, 64);", s.barrier_id(s.partner(w, p), p));
                read_back(&mut out, s, w, p);
            }
            out.push_str("    }\n");
        }
        if !s.named {
            out.push_str("    __syncthreads();\n");
            for w in 0..s.warps {
                let _ = writeln!(out, "    if (warp == {w}) {{");
                read_back(&mut out, s, w, p);
                out.push_str("    }\n");
            }
        }
        out.push_str("    __syncthreads();\n");
    }
    for r in 0..REGS {
        let _ = writeln!(out, "    out[({r} * NW + warp) * stride + point] = r{r};");
    }
    out.push_str("}\n");
    out
}

/// Warp `w`'s loads, arithmetic and result store of phase `p`, and the stores of its slots.
fn publish(out: &mut String, s: &SingeShape, w: u32, p: u32) {
    let row = |k: u32| (REGS + p) * s.warps * 2 + 2 * w + k;
    let _ = writeln!(out, "        r{} += in[{} * stride + point];", p % REGS, row(0));
    for i in 0..s.lines {
        arith_line(out, w, p, i);
    }
    let _ = writeln!(out, "        out[{} * stride + point] = r{};", row(1), (p + 5) % REGS);
    for k in 0..s.slots {
        let _ = writeln!(out, "        xch[{w}][{k}][lane] = r{};", (p + k) % REGS);
    }
}

/// Warp `w`'s loads of its partner's slots in phase `p`.
fn read_back(out: &mut String, s: &SingeShape, w: u32, p: u32) {
    let from = s.partner(w, p);
    for k in 0..s.slots {
        let _ = writeln!(out, "        r{} += xch[{from}][{k}][lane];", (p + k + 3) % REGS);
    }
}
