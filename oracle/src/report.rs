//! What the checkers report: races, divergent barriers, named-barrier defects, with witnesses.
//! Both oracles produce a [`Report`]; synthesis reads races by label pair and iteration relation.

use crate::ir::{AccessKind, ArrayId, Dim, Label, Span};
use serde::{Deserialize, Serialize};

/// How two racing accesses relate across loop iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum IterRelation {
    /// No barrier-free path; or both in the same iteration of every common loop (or no common loop).
    SameIteration,
    /// The second access (in text order) happens in a later iteration of the common loop at this
    /// depth (1 = outermost common loop) than the first: the race straddles that back edge.
    AcrossBackEdge(u32),
    /// The second access (in text order) happens in an earlier iteration of the common loop at
    /// this depth than the first: the later statement of one iteration races with the earlier
    /// statement of a following iteration.
    AcrossBackEdgeReversed(u32),
    /// As `SameIteration`, and besides the first access (in text order) is in a loop of its own
    /// at this depth (1 = its outermost loop) that the second access comes after, in an
    /// iteration other than that loop's last: the race needs a later iteration of that loop to
    /// run in between, so a barrier every iteration passes also separates the two.
    NotLastIteration(u32),
    /// As `SameIteration`, and besides the second access (in text order) is in a loop of its
    /// own at this depth (1 = its outermost loop) that the first access comes before, in an
    /// iteration other than that loop's first: the race needs an earlier iteration of that
    /// loop to run in between, so a barrier every iteration passes also separates the two.
    NotFirstIteration(u32),
    /// The checker could not classify it (synthesis falls back to refutation).
    Unknown,
}

/// RAW/WAR/WAW/atomic-vs-plain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RaceKind {
    /// Read after write (first access writes, second reads).
    ReadAfterWrite,
    /// Write after read.
    WriteAfterRead,
    /// Write after write.
    WriteAfterWrite,
    /// An atomic against a plain access.
    AtomicVsPlain,
}

impl RaceKind {
    /// Classifies a pair of access kinds (first, second in program order).
    pub fn of(a: AccessKind, b: AccessKind) -> RaceKind {
        use AccessKind::*;
        match (a, b) {
            (Atomic, _) | (_, Atomic) => RaceKind::AtomicVsPlain,
            (Write, Read) => RaceKind::ReadAfterWrite,
            (Read, Write) => RaceKind::WriteAfterRead,
            _ => RaceKind::WriteAfterWrite,
        }
    }
    /// Short name (`RAW`, `WAR`, `WAW`, `atomic`).
    pub fn short(self) -> &'static str {
        match self {
            RaceKind::ReadAfterWrite => "RAW",
            RaceKind::WriteAfterRead => "WAR",
            RaceKind::WriteAfterWrite => "WAW",
            RaceKind::AtomicVsPlain => "atomic-vs-plain",
        }
    }
}

/// The scope of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RaceScope {
    /// Two threads of one block: barriers can fix it.
    IntraBlock,
    /// Threads of different blocks on global memory: no barrier fixes it.
    InterBlock,
}

/// One thread in a witness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ThreadId {
    /// `threadIdx` (x, y, z).
    pub thread: [u32; 3],
    /// `blockIdx` (x, y, z).
    pub block: [u32; 3],
}

/// A concrete execution showing a defect.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// The threads involved (two for a race).
    pub threads: Vec<ThreadId>,
    /// Values of relevant variables (loop counters, parameters): (name, value for the first
    /// thread, value for the second thread when it differs).
    pub values: Vec<(String, i64, Option<i64>)>,
    /// The element index both accesses touch (byte offset / element size), when known.
    pub index: Option<i64>,
    /// The byte offset both accesses touch, when known.
    pub byte_offset: Option<i64>,
}

/// One end of a race.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceAccess {
    /// The statement's label.
    pub label: Label,
    /// The access's span (the array expression).
    pub span: Span,
    /// Read, write or atomic.
    pub kind: AccessKind,
}

/// A data race between two statements on one array.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// The array.
    pub array: ArrayId,
    /// First access in program (text) order.
    pub first: RaceAccess,
    /// Second access in program (text) order (may be the same statement).
    pub second: RaceAccess,
    /// RAW/WAR/WAW/atomic.
    pub kind: RaceKind,
    /// Iteration relations under which the race happens (several when it happens both within
    /// an iteration and across a back edge).
    pub relations: Vec<IterRelation>,
    /// Intra- or inter-block.
    pub scope: RaceScope,
    /// A concrete witness.
    pub witness: Witness,
    /// Whether the solver answered "unknown" (the race is assumed, not proven).
    pub assumed: bool,
    /// Whether every racing execution has both threads store the same value at the same
    /// address (a benign write-write race; defects only under `--strict`).
    #[serde(default)]
    pub benign: bool,
    /// Kernel parameters whose values must put two distinct elements of the (global) array at
    /// one address for the race to happen (a zero stride, rows closer than their length):
    /// every execution where both threads touch the same element is race-free. Empty for a
    /// race that happens for every layout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overlap: Vec<String>,
    /// One side is a bulk store still reading its shared-memory source (before the issuing
    /// thread's `cp.async.bulk.wait_group.read`), the other a write to that source.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub store_in_flight: bool,
}

/// A barrier reached under a condition that is not uniform across the threads that must meet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// The barrier's label.
    pub barrier: Label,
    /// Its span.
    pub span: Span,
    /// The label of the innermost enclosing statement whose condition is non-uniform.
    pub cond_stmt: Label,
    /// Span of that condition.
    pub cond_span: Span,
    /// Whether the condition is non-uniform only across warps (true) or within a warp (false).
    pub within_warp: bool,
    /// A grid barrier whose condition agrees within each block but may differ between blocks
    /// (some blocks skip it: the grid hangs).
    #[serde(default)]
    pub across_blocks: bool,
}

/// Defects only the named-barrier checker finds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncDefectKind {
    /// Some execution blocks forever; `cycle` lists (warp, barrier label) waits.
    Deadlock {
        /// Warps and the barrier each waits at.
        waits: Vec<(u32, Label)>,
    },
    /// Registrants of one generation disagree on the count.
    CountMismatch {
        /// The two counts.
        counts: (u32, u32),
    },
    /// More threads registered than the count allows.
    TooManyParticipants {
        /// The count.
        count: u32,
        /// How many registered.
        registered: u32,
    },
    /// A generation completed by arrivals alone.
    ArriveOnly,
    /// Generation k+1 of an id can start before generation k completed.
    UnsafeRecycling {
        /// The barrier id.
        id: u32,
    },
    /// Barrier id outside 0..=15.
    BadId {
        /// The id.
        id: i64,
    },
    /// Count not a positive multiple of the warp size.
    BadCount {
        /// The count.
        count: i64,
    },
    /// An mbarrier used before its initialization (or after its invalidation) in some
    /// execution.
    UninitializedUse {
        /// The mbarrier as written (`full[1]`).
        barrier: String,
    },
    /// More arrivals in one phase of an mbarrier than its count (or a count that lets no
    /// phase complete).
    ArrivalOverflow {
        /// The mbarrier.
        barrier: String,
        /// Its expected arrival count.
        count: i64,
    },
    /// A parity wait that may observe another phase than the one it observes in the
    /// simulated schedule (it may pass early on an older phase of the same parity, or miss
    /// its phase and observe a later one).
    ParityMismatch {
        /// The mbarrier.
        barrier: String,
        /// The phase the wait observes in the simulated schedule (-1: none yet).
        phase: i64,
    },
    /// The bytes a phase expects (`expect_tx`) differ from those its copies complete.
    TxMismatch {
        /// The mbarrier.
        barrier: String,
        /// The phase.
        phase: i64,
        /// Bytes expected.
        expected: i64,
        /// Bytes completed.
        completed: i64,
    },
    /// An arrival, expected or completed transaction that may count toward another phase
    /// than in the simulated schedule: it is not ordered after the previous phase's completion
    /// (e.g. a stage refilled before its consumers released it), or an `expect_tx` not ordered
    /// before the phase's arrivals.
    PhaseOrder {
        /// The mbarrier.
        barrier: String,
        /// The phase it counts toward in the simulated schedule.
        phase: i64,
    },
    /// A generic-proxy write to shared memory that a copy later reads through the async proxy
    /// (a bulk or TMA store), with no `fence.proxy.async` of the writing thread between them.
    MissingProxyFence {
        /// The shared array as declared.
        array: String,
    },
    /// Some thread reaches a trap on every path: the kernel never completes a launch (often
    /// code a library compiles as a trap below the architecture it needs).
    AlwaysTraps {
        /// The trap as written (`brkpt`, `__trap()`).
        instr: String,
        /// The function it is in.
        function: String,
        /// The architecture the code was read for.
        arch: String,
    },
}

/// A synchronization defect found by the named-barrier checker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncDefect {
    /// What.
    pub kind: SyncDefectKind,
    /// Barrier labels involved.
    pub labels: Vec<Label>,
    /// Their spans.
    pub spans: Vec<Span>,
    /// Human-readable trace (which warps, which generations).
    pub trace: Vec<String>,
}

/// A hazard the front end finds in the kernel's code, outside what the checkers decide: a
/// warning with its own rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Hazard {
    /// A read-only-path load (`__ldg`, `ld.global.nc`) after the grid-dependency wait of
    /// programmatic dependent launch: the compiler may move it above the wait, where it can
    /// read what the previous grid has not written yet.
    NcLoadAfterGridWait {
        /// The load.
        load: Span,
        /// How it is written (`__ldg`, `ld.global.nc.f32`).
        what: String,
        /// The wait (`cudaGridDependencySynchronize()`, `griddepcontrol.wait`).
        wait: Span,
    },
}

/// Why a check could not conclude.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inconclusive {
    /// The statement or expression concerned.
    pub span: Span,
    /// What is missing and what to do.
    pub message: String,
}

/// The result of checking one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Every racing label pair per array.
    pub races: Vec<Race>,
    /// Benign races (see [`Race::benign`]): warnings, not defects; empty under `--strict`,
    /// which reports them in `races`.
    #[serde(default)]
    pub benign: Vec<Race>,
    /// Races only overlapping tensor layouts make (see [`Race::overlap`]): warnings, not
    /// defects; empty under `--strict`, which reports them in `races`.
    #[serde(default)]
    pub overlap: Vec<Race>,
    /// Divergent barriers.
    pub divergences: Vec<Divergence>,
    /// Named-barrier defects.
    pub sync_defects: Vec<SyncDefect>,
    /// Reasons the check is inconclusive (empty when it concluded).
    pub inconclusive: Vec<Inconclusive>,
    /// Hazards the front end found (warnings, not defects).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hazards: Vec<Hazard>,
    /// Solver queries issued (for statistics).
    pub queries: u64,
    /// Conflict queries the GCD test settled without the solver (for statistics).
    #[serde(default)]
    pub settled_by_divisibility: u64,
    /// Conflict queries the injectivity test settled without the solver (for statistics).
    #[serde(default)]
    pub settled_by_injectivity: u64,
    /// Whether wall-clock time cut the check short (the kernel's budget ran out, or a conflict
    /// query was left undecided after an attempt hit its wall-clock limit): the report may
    /// differ on a less loaded machine, so it is not kept in the result cache.
    #[serde(default)]
    pub out_of_time: bool,
}

impl Report {
    /// No defect and conclusive.
    pub fn is_clean(&self) -> bool {
        self.races.is_empty()
            && self.divergences.is_empty()
            && self.sync_defects.is_empty()
            && self.inconclusive.is_empty()
    }
}

/// Thread coordinates helper: linear thread index from (x, y, z) and blockDim.
pub fn linear_tid(t: [u32; 3], block_dim: [u32; 3]) -> u64 {
    t[Dim::X.index()] as u64
        + block_dim[0] as u64 * (t[Dim::Y.index()] as u64 + block_dim[1] as u64 * t[Dim::Z.index()] as u64)
}
