//! Random CUDA kernels for differential testing and fuzzing.
//!
//! [`generate`] draws a small `__global__` kernel from a seed: shared arrays indexed by thread-
//! and loop-dependent expressions, thread-dependent and uniform branches, nested loops with
//! concrete or symbolic (`n`) bounds, and `__syncthreads()` at random block-uniform positions.
//! [`GenKernel::to_cuda`] prints it as CUDA text, which the tests lower with
//! [`autosync::front::lower_text`], so the preprocessor and the front end are exercised too.
//! Barriers are only placed where every enclosing condition is block-uniform, so every
//! generated kernel is free of barrier divergence and the checkers' race sets are comparable.
//! Kernels may also store a local `u` that only some paths assign (an uninitialized value,
//! different in every thread, where no assignment ran) and add block-wide votes
//! (`__syncthreads_count`) to `x`.

mod print;
mod rng;

pub use rng::Rng;

/// What kind of kernels to draw.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Largest `blockDim.x * blockDim.y` to draw (at least 2).
    pub max_threads: u32,
    /// Allow 2-D blocks (`threadIdx.y`).
    pub two_d: bool,
    /// Deepest nesting of `if`/`for`.
    pub max_depth: u32,
    /// Most statements per block.
    pub max_stmts: u32,
    /// Allow loops bounded by the symbolic parameter `n`.
    pub symbolic_loops: bool,
    /// Allow conditions on values read from shared memory.
    pub data_dependent: bool,
    /// Allow brace-less single-statement `if` and `for` bodies.
    pub braceless: bool,
    /// Percent chance of a `__syncthreads()` at each block-uniform statement position.
    pub barrier_percent: u64,
    /// Only write at indices injective in the thread id and never read in a writing statement,
    /// so that no race lies within one statement (barriers can then fix more kernels).
    pub injective_writes: bool,
    /// Allow stores of the local `u`, which is uninitialized unless a `u = 5;` ran.
    pub uninit_values: bool,
    /// Allow `x = x + __syncthreads_count(c);` (a barrier with a vote) at block-uniform
    /// positions.
    pub votes: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_threads: 64,
            two_d: true,
            max_depth: 2,
            max_stmts: 3,
            symbolic_loops: true,
            data_dependent: true,
            braceless: true,
            barrier_percent: 25,
            injective_writes: false,
            uninit_values: true,
            votes: true,
        }
    }
}

impl GenConfig {
    /// Kernels every checker handles quickly: concrete loop bounds, no data-dependent branches,
    /// shallow nesting (for the named-barrier checker, which is slow on symbolic addresses).
    pub fn concrete() -> GenConfig {
        GenConfig {
            max_threads: 32,
            max_depth: 2,
            max_stmts: 3,
            symbolic_loops: false,
            data_dependent: false,
            ..GenConfig::default()
        }
    }

    /// Kernels whose races barriers can usually remove (for testing `fix`).
    pub fn fixable() -> GenConfig {
        GenConfig {
            barrier_percent: 10,
            injective_writes: true,
            ..GenConfig::default()
        }
    }
}

/// An index expression into a shared array.
#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    /// `t`
    Tid,
    /// `t + c`
    TidPlus(i64),
    /// `B - 1 - t`
    Mirror,
    /// `t ^ 1`
    XorOne,
    /// `t / 2`
    Half,
    /// `2 * t`
    Double,
    /// A constant.
    Const(i64),
    /// Loop variable of depth `d`.
    Loop(usize),
    /// `t + i_d`
    TidPlusLoop(usize),
    /// `(t + i_d) % B`
    RotLoop(usize),
    /// `(t + c) % B`
    Rot(i64),
    /// `threadIdx.y` (2-D blocks).
    Row,
}

/// A value stored into shared memory.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `t`
    Tid,
    /// `x`
    X,
    /// `x + 1`
    XPlusOne,
    /// Loop variable of depth `d`.
    Loop(usize),
    /// A read of another element: `s_a[idx] + 1`.
    Elem(usize, Index),
    /// `u`: uninitialized (a different value in every thread) unless `u = 5;` ran.
    U,
}

/// A branch condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// `t < c` (thread-dependent)
    TidLess(i64),
    /// `(t & 1) == 0` (thread-dependent)
    Even,
    /// `t % 3 == 1` (thread-dependent)
    ModThree,
    /// `threadIdx.x == 0` (thread-dependent)
    FirstLane,
    /// `n > c` (uniform)
    NGreater(i64),
    /// `i_d < c` (uniform when the loop is)
    LoopLess(usize, i64),
    /// `i_d % 2 == 0` (uniform when the loop is)
    LoopEven(usize),
    /// `x > c` where `x` holds data read from shared memory (thread-dependent)
    XGreater(i64),
}

impl Cond {
    /// Whether every thread of the block evaluates the condition the same way.
    pub fn is_uniform(&self) -> bool {
        matches!(self, Cond::NGreater(_) | Cond::LoopLess(..) | Cond::LoopEven(_))
    }
}

/// The upper bound of a loop `for (int i = 0; i < bound; i++)`.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    /// A constant.
    Const(i64),
    /// The kernel parameter `n`.
    N,
}

/// A statement of a generated kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum GStmt {
    /// `s_a[idx] = value;`
    Write(usize, Index, Value),
    /// `x = x + s_a[idx];`
    Read(usize, Index),
    /// `x = x * 3 + 1;` (no memory access)
    Local,
    /// `__syncthreads();`
    Sync,
    /// `x = x + __syncthreads_count(c);` (a barrier, at block-uniform positions only)
    Vote(Cond),
    /// `u = 5;`
    SetU,
    /// `if (c) { .. } else { .. }`
    If(Cond, Vec<GStmt>, Vec<GStmt>),
    /// `for (int i_d = 0; i_d < bound; i_d++) { .. }`
    For(usize, Bound, Vec<GStmt>),
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct GenKernel {
    /// The seed it was drawn from.
    pub seed: u64,
    /// `blockDim` (x, y).
    pub block: [u32; 2],
    /// Number of shared arrays (`s0`, `s1`, ...).
    pub arrays: usize,
    /// Elements per shared array.
    pub size: u32,
    /// The body (between the prologue and `out[t] = x;`).
    pub body: Vec<GStmt>,
    /// Print brace-less bodies where a body has one statement.
    pub braceless: bool,
}

impl GenKernel {
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        self.block[0] * self.block[1]
    }

    /// Whether the kernel reads the parameter `n` (its behaviour then depends on `n`).
    pub fn uses_n(&self) -> bool {
        fn any(s: &[GStmt]) -> bool {
            s.iter().any(|s| match s {
                GStmt::If(c, a, b) => matches!(c, Cond::NGreater(_)) || any(a) || any(b),
                GStmt::For(_, b, body) => *b == Bound::N || any(body),
                _ => false,
            })
        }
        any(&self.body)
    }

    /// Number of `__syncthreads()` in the kernel.
    pub fn barriers(&self) -> usize {
        fn count(s: &[GStmt]) -> usize {
            s.iter()
                .map(|s| match s {
                    GStmt::Sync | GStmt::Vote(_) => 1,
                    GStmt::If(_, a, b) => count(a) + count(b),
                    GStmt::For(_, _, body) => count(body),
                    _ => 0,
                })
                .sum()
        }
        count(&self.body)
    }

    /// The kernel as CUDA source with a GPUVerify-style launch header.
    pub fn to_cuda(&self) -> String {
        print::kernel(self)
    }

    /// The same kernel with every `__syncthreads()` removed.
    pub fn without_barriers(&self) -> GenKernel {
        fn strip(s: &[GStmt]) -> Vec<GStmt> {
            s.iter()
                .filter(|s| !matches!(s, GStmt::Sync | GStmt::Vote(_)))
                .map(|s| match s {
                    GStmt::If(c, a, b) => GStmt::If(c.clone(), strip(a), strip(b)),
                    GStmt::For(d, b, body) => GStmt::For(*d, b.clone(), strip(body)),
                    other => other.clone(),
                })
                .collect()
        }
        GenKernel {
            body: strip(&self.body),
            ..self.clone()
        }
    }
}

/// Draws the kernel of `seed` under `cfg`.
pub fn generate(seed: u64, cfg: &GenConfig) -> GenKernel {
    let mut rng = Rng::new(seed);
    let block = if cfg.two_d && rng.chance(25) {
        let x = *rng.pick(&[2u32, 4, 8]);
        let y = (cfg.max_threads.max(4) / x).clamp(2, 4);
        [x, y]
    } else {
        let choices: Vec<u32> = [2u32, 4, 8, 16, 32, 64, 128]
            .into_iter()
            .filter(|&b| b <= cfg.max_threads.max(2))
            .collect();
        [*rng.pick(&choices), 1]
    };
    let arrays = rng.range(1, 2) as usize;
    let threads = block[0] * block[1];
    let mut g = Gen {
        rng,
        cfg,
        threads: threads as i64,
        arrays,
        two_d: block[1] > 1,
    };
    let mut body = g.block(0, true, 0);
    if body.is_empty() {
        body.push(GStmt::Write(0, Index::Tid, Value::Tid));
    }
    GenKernel {
        seed,
        block,
        arrays,
        size: 4 * threads + 8,
        body,
        braceless: cfg.braceless,
    }
}

/// Generator state for one kernel.
struct Gen<'c> {
    rng: Rng,
    cfg: &'c GenConfig,
    threads: i64,
    arrays: usize,
    two_d: bool,
}

impl Gen<'_> {
    /// A statement list at nesting `depth` with `loops` enclosing loops; `uniform` says whether
    /// every enclosing condition is block-uniform (only then may a barrier go here).
    fn block(&mut self, depth: u32, uniform: bool, loops: usize) -> Vec<GStmt> {
        let n = self.rng.range(1, self.cfg.max_stmts.max(1) as i64);
        let mut out = Vec::new();
        for _ in 0..n {
            if uniform && self.rng.chance(self.cfg.barrier_percent) {
                if self.cfg.votes && self.rng.chance(20) {
                    let c = self.cond(loops);
                    out.push(GStmt::Vote(c));
                } else {
                    out.push(GStmt::Sync);
                }
            }
            out.push(self.stmt(depth, uniform, loops));
        }
        if uniform && self.rng.chance(self.cfg.barrier_percent / 2) {
            out.push(GStmt::Sync);
        }
        out
    }

    fn stmt(&mut self, depth: u32, uniform: bool, loops: usize) -> GStmt {
        let nested = depth < self.cfg.max_depth;
        match self.rng.below(if nested { 10 } else { 6 }) {
            0..=2 => {
                let a = self.array();
                let idx = if self.cfg.injective_writes {
                    self.injective_index(loops)
                } else {
                    self.index(loops)
                };
                GStmt::Write(a, idx, self.value(loops))
            }
            3 | 4 => {
                let a = self.array();
                GStmt::Read(a, self.index(loops))
            }
            5 if self.cfg.uninit_values && self.rng.chance(30) => GStmt::SetU,
            5 => GStmt::Local,
            6 | 7 => {
                let c = self.cond(loops);
                let inner_uniform = uniform && c.is_uniform();
                let then = self.block(depth + 1, inner_uniform, loops);
                let els = if self.rng.chance(40) {
                    self.block(depth + 1, inner_uniform, loops)
                } else {
                    Vec::new()
                };
                GStmt::If(c, then, els)
            }
            _ => {
                let bound = if self.cfg.symbolic_loops && self.rng.chance(40) {
                    Bound::N
                } else {
                    Bound::Const(self.rng.range(1, 3))
                };
                GStmt::For(loops, bound, self.block(depth + 1, uniform, loops + 1))
            }
        }
    }

    fn array(&mut self) -> usize {
        self.rng.below(self.arrays as u64) as usize
    }

    fn index(&mut self, loops: usize) -> Index {
        let b = self.threads;
        loop {
            let i = match self.rng.below(13) {
                0 | 1 => Index::Tid,
                2 => Index::TidPlus(self.rng.range(1, 3)),
                3 => Index::Mirror,
                4 => Index::XorOne,
                5 => Index::Half,
                6 => Index::Double,
                7 => Index::Const(self.rng.range(0, b - 1)),
                8 if loops > 0 => Index::Loop(self.rng.below(loops as u64) as usize),
                9 if loops > 0 => Index::TidPlusLoop(self.rng.below(loops as u64) as usize),
                10 if loops > 0 => Index::RotLoop(self.rng.below(loops as u64) as usize),
                11 => Index::Rot(self.rng.range(1, b - 1).max(1)),
                12 if self.two_d => Index::Row,
                _ => continue,
            };
            return i;
        }
    }

    /// An index no two threads share (in one iteration).
    fn injective_index(&mut self, loops: usize) -> Index {
        match self.rng.below(7) {
            0 => Index::TidPlus(self.rng.range(1, 3)),
            1 => Index::Mirror,
            2 => Index::XorOne,
            3 => Index::Double,
            4 => Index::Rot(self.rng.range(1, self.threads - 1).max(1)),
            5 if loops > 0 => Index::TidPlusLoop(self.rng.below(loops as u64) as usize),
            _ => Index::Tid,
        }
    }

    fn value(&mut self, loops: usize) -> Value {
        match self.rng.below(if self.cfg.injective_writes { 4 } else { 6 }) {
            0 => Value::Tid,
            1 => Value::X,
            2 => Value::XPlusOne,
            3 if loops > 0 => Value::Loop(self.rng.below(loops as u64) as usize),
            4 if self.cfg.uninit_values && self.rng.chance(40) => Value::U,
            4 => {
                let a = self.array();
                Value::Elem(a, self.index(loops))
            }
            _ => Value::Tid,
        }
    }

    fn cond(&mut self, loops: usize) -> Cond {
        let b = self.threads;
        loop {
            let c = match self.rng.below(8) {
                0 => Cond::TidLess(self.rng.range(1, b)),
                1 => Cond::Even,
                2 => Cond::ModThree,
                3 => Cond::FirstLane,
                4 if self.cfg.symbolic_loops => Cond::NGreater(self.rng.range(0, 3)),
                5 if loops > 0 => Cond::LoopLess(self.rng.below(loops as u64) as usize, self.rng.range(1, 2)),
                6 if loops > 0 => Cond::LoopEven(self.rng.below(loops as u64) as usize),
                7 if self.cfg.data_dependent => Cond::XGreater(self.rng.range(0, 100)),
                _ => continue,
            };
            return c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gen_same_seed_same_kernel_and_barriers_only_at_uniform_positions() {
        let cfg = GenConfig::default();
        for seed in 0..300 {
            let k = generate(seed, &cfg);
            assert_eq!(k.to_cuda(), generate(seed, &cfg).to_cuda());
            fn check(s: &[GStmt], uniform: bool) {
                for s in s {
                    match s {
                        GStmt::Sync | GStmt::Vote(_) => assert!(uniform),
                        GStmt::If(c, a, b) => {
                            check(a, uniform && c.is_uniform());
                            check(b, uniform && c.is_uniform());
                        }
                        GStmt::For(_, _, body) => check(body, uniform),
                        _ => {}
                    }
                }
            }
            check(&k.body, true);
            assert_eq!(k.without_barriers().barriers(), 0);
        }
    }

    #[test]
    fn gen_draws_every_kind_of_statement() {
        let cfg = GenConfig::default();
        let text: String = (0..200).map(|s| generate(s, &cfg).to_cuda()).collect();
        for needle in [
            "__syncthreads();",
            "for (int i1",
            "if (",
            "else",
            "threadIdx.y",
            "< n;",
            "% 3 == 1",
            "__syncthreads_count(",
            "u = 5;",
            "] = u;",
        ] {
            assert!(text.contains(needle), "no `{needle}` in 200 kernels");
        }
    }
}
