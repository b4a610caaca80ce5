//! The rules autosync reports: their ids, nouns, severities, descriptions and help (what
//! SARIF, the docs and the text outputs say), and which rule names a user may write in a
//! suppression.

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A proven defect.
    Error,
    /// Could not decide (an assumed race, an inconclusive part).
    Warning,
}

impl Severity {
    /// The word outputs show (`error`, `warning`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A rule: what a finding is, as SARIF and the docs describe it.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The rule id (`race`), used in outputs and suppressions.
    pub id: &'static str,
    /// What one finding is called in a sentence (`count mismatch`).
    pub noun: &'static str,
    /// How bad a proven finding is (assumed races, and benign races without `--strict`, are
    /// warnings whatever their rule).
    pub severity: Severity,
    /// One line.
    pub short: &'static str,
    /// A paragraph: what it means.
    pub full: &'static str,
    /// What to do about it.
    pub help: &'static str,
}

/// `race`.
pub const RACE: Rule = Rule {
    id: "race",
    noun: "a data race",
    severity: Severity::Error,
    short: "Data race between threads of a block (or between blocks)",
    full: "Two threads access the same element of an array, at least one of them writes, and no barrier both threads pass orders the two accesses.",
    help: "Run `autosync fix` to insert the barrier that orders the accesses. A race between blocks cannot be fixed by barriers: make the blocks write disjoint elements. If the race is a false alarm, suppress it with `// autosync: ignore[race]` on either access's line.",
};

/// `benign-race`.
pub const BENIGN_RACE: Rule = Rule {
    id: "benign-race",
    noun: "a benign race",
    severity: Severity::Error,
    short: "Race where every thread stores the same value (and a load sees that value)",
    full: "Two threads store to the same element without a barrier between them, but in every such execution they store the same value: the result does not depend on the order. Likewise a load racing with such stores after its own thread stored that same value there: it sees that value whichever store it sees. A warning by default; `--strict` reports it as a race.",
    help: "Usually harmless (a flag every thread sets to 1); write it from one thread, or run with `--strict` in CI to treat it as a race and let `autosync fix --strict` order it.",
};

/// `layout-race`.
pub const LAYOUT_RACE: Rule = Rule {
    id: "layout-race",
    noun: "a race for overlapping layouts",
    severity: Severity::Warning,
    short: "Race only when size or stride parameters make distinct elements of a tensor overlap",
    full: "Two threads (or blocks) can touch one address of a global array only when the kernel's size and stride parameters put two distinct elements there: a zero stride, rows closer than their length. Every execution in which both touch the same element is race-free. A warning, not an error: the kernel is correct for every layout whose elements do not overlap. `--strict` reports it as a race.",
    help: "Nothing to do if the kernel is only launched on tensors whose elements are distinct (the usual case). If an overlapping view can reach it (a broadcast with stride 0 as the destination), write to a contiguous copy instead. No barrier is inserted for it.",
};

/// `barrier-divergence`.
pub const BARRIER_DIVERGENCE: Rule = Rule {
    id: "barrier-divergence",
    noun: "a divergent barrier",
    severity: Severity::Error,
    short: "Barrier under a thread-dependent condition",
    full: "A barrier is reached under a condition that differs between the threads that must meet there, so some threads wait at a barrier others never reach (undefined behaviour, usually a hang).",
    help: "Move the barrier out of the condition, or make the condition uniform across the block (or the warps of a named barrier).",
};

/// `deadlock`.
pub const DEADLOCK: Rule = Rule {
    id: "deadlock",
    noun: "deadlock",
    severity: Severity::Error,
    short: "Named barriers can wait forever",
    full: "In some execution a warp waits at a named barrier whose count is never reached, or at an mbarrier phase that never completes.",
    help: "Check that every participating warp reaches the barrier with the same ID and count as often as the others.",
};

/// `count-mismatch`.
pub const COUNT_MISMATCH: Rule = Rule {
    id: "count-mismatch",
    noun: "count mismatch",
    severity: Severity::Error,
    short: "Participants of a named barrier disagree on the thread count",
    full: "Warps registering at one generation of a named barrier pass different thread counts.",
    help: "Use one thread count for every `bar.sync`/`bar.arrive` of a barrier ID.",
};

/// `too-many-participants`.
pub const TOO_MANY_PARTICIPANTS: Rule = Rule {
    id: "too-many-participants",
    noun: "too many participants",
    severity: Severity::Error,
    short: "More threads registered at a named barrier than its count",
    full: "More threads register at one generation of a named barrier than its count allows.",
    help: "Raise the count to 32 x the number of participating warps, or let fewer warps take part.",
};

/// `arrive-only`.
pub const ARRIVE_ONLY: Rule = Rule {
    id: "arrive-only",
    noun: "a generation completed by arrivals only",
    severity: Severity::Error,
    short: "A named-barrier generation completed by arrivals alone",
    full: "A generation of a named barrier completes with `bar.arrive` only: nobody waits, so it orders nothing.",
    help: "Make the consumer side wait with `bar.sync` on that ID.",
};

/// `unsafe-recycling`.
pub const UNSAFE_RECYCLING: Rule = Rule {
    id: "unsafe-recycling",
    noun: "unsafe barrier recycling",
    severity: Severity::Error,
    short: "A named barrier is reused before its previous generation completed",
    full: "A named barrier ID starts its next generation while warps may still be registering for the previous one.",
    help: "Use a different barrier ID for the second use, or separate the uses by a barrier every warp passes.",
};

/// `bad-id`.
pub const BAD_ID: Rule = Rule {
    id: "bad-id",
    noun: "barrier ID out of range",
    severity: Severity::Error,
    short: "Named barrier id outside 0..=15",
    full: "PTX has 16 named barriers per block; the ID is outside 0..=15.",
    help: "Use an ID from 0 to 15 (0 is what `__syncthreads` uses).",
};

/// `bad-count`.
pub const BAD_COUNT: Rule = Rule {
    id: "bad-count",
    noun: "barrier count not a multiple of 32",
    severity: Severity::Error,
    short: "Named barrier thread count not a positive multiple of 32",
    full: "A named barrier's thread count must be a positive multiple of the warp size.",
    help: "Use 32 x the number of participating warps.",
};

/// `mbarrier-uninitialized`.
pub const MBARRIER_UNINITIALIZED: Rule = Rule {
    id: "mbarrier-uninitialized",
    noun: "an mbarrier used before its initialization",
    severity: Severity::Error,
    short: "An mbarrier is used before its initialization is visible",
    full: "A thread arrives on, waits on or completes transactions on an mbarrier that no `mbarrier.init` ordered before it initialized (or that was invalidated).",
    help: "Initialize the mbarrier from one thread, then `fence.mbarrier_init` and `__syncthreads()` (or a cluster barrier) before any use.",
};

/// `mbarrier-overflow`.
pub const MBARRIER_OVERFLOW: Rule = Rule {
    id: "mbarrier-overflow",
    noun: "more arrivals than an mbarrier's count",
    severity: Severity::Error,
    short: "More arrivals in one mbarrier phase than its count",
    full: "Threads arrive on an mbarrier more often in one phase than the count it was initialized with, so some arrivals count toward the next phase.",
    help: "Initialize the mbarrier with the number of arriving threads (or arrive from one elected thread per warp with a count of warps).",
};

/// `mbarrier-parity`.
pub const MBARRIER_PARITY: Rule = Rule {
    id: "mbarrier-parity",
    noun: "an mbarrier parity mismatch",
    severity: Severity::Error,
    short: "An mbarrier parity wait may observe the wrong phase",
    full: "A `try_wait.parity`/`test_wait.parity` wait is not ordered after the phase before the one it waits for, or the phase after may complete before it: in some execution it passes on an older phase of the same parity, or waits for a later one.",
    help: "Start the consumer's phase bit at 0 and the producer's (on the empty barriers) at 1, and flip each when the stage index wraps around the ring.",
};

/// `mbarrier-tx`.
pub const MBARRIER_TX: Rule = Rule {
    id: "mbarrier-tx",
    noun: "an mbarrier transaction-count mismatch",
    severity: Severity::Error,
    short: "Expected transaction bytes differ from the bytes copied",
    full: "The bytes a phase expects (`expect_tx`, `arrive.expect_tx`) differ from the bytes the asynchronous copies issued for it complete: the phase completes early, or never.",
    help: "Expect exactly the bytes of the copies that complete on the barrier (the sum of their sizes).",
};

/// `mbarrier-phase-order`.
pub const MBARRIER_PHASE_ORDER: Rule = Rule {
    id: "mbarrier-phase-order",
    noun: "an mbarrier arrival out of phase",
    severity: Severity::Error,
    short: "An mbarrier arrival may count toward another phase",
    full: "An arrival or transaction on an mbarrier is not ordered after the completion of the previous phase (for example a producer refilling a stage before its consumers released it), so in some execution it counts toward an earlier phase.",
    help: "Wait on the stage's empty barrier (the consumers' release) before arriving on or copying into its full barrier again.",
};

/// `missing-proxy-fence`.
pub const MISSING_PROXY_FENCE: Rule = Rule {
    id: "missing-proxy-fence",
    noun: "a missing async-proxy fence",
    severity: Severity::Error,
    short: "Shared memory written before an async-proxy read without fence.proxy.async",
    full: "A bulk copy or TMA store (`cp.async.bulk.global.shared::cta`, `cp.async.bulk.tensor.*.global.shared::cta`) reads shared memory through the async proxy, which sees ordinary (generic-proxy) writes only through a `fence.proxy.async` that happens after them and before the copy: the writer's own, or the issuing thread's after the barrier that orders the writes before it. A barrier orders the threads, not the proxies: without the fence the copy may store stale data to global memory.",
    help: "Have every thread that writes the buffer run `fence.proxy.async.shared::cta` (CUTLASS: `cute::tma_store_fence()`) after its writes and before the barrier that precedes the copy, or have the issuing thread run it after that barrier, just before the copy.",
};

/// `store-source-reuse`.
pub const STORE_SOURCE_REUSE: Rule = Rule {
    id: "store-source-reuse",
    noun: "a bulk-store source reused in flight",
    severity: Severity::Error,
    short: "A bulk store's shared-memory source written before the store has read it",
    full: "A bulk copy or TMA store to global memory reads its shared-memory source asynchronously, until the issuing thread's `cp.async.bulk.wait_group.read` retires its bulk group. A write to the source that is not ordered after that wait (a ring of epilogue buffers refilled too early) races with the store's read: global memory may get the new data, the old, or a mix.",
    help: "Before the buffer is written again, have the issuing thread run `cp.async.bulk.wait_group.read N` (N: the bulk groups that may stay in flight; CUTLASS: `tma_store_wait<N>()`) and order the writers after it with a barrier. No barrier alone fixes it, so `fix` writes nothing.",
};

/// `always-traps`.
pub const ALWAYS_TRAPS: Rule = Rule {
    id: "always-traps",
    noun: "a kernel that always traps",
    severity: Severity::Error,
    short: "Some thread traps on every path",
    full: "Some thread of the block reaches a trap (`brkpt`, `trap`, `__trap()`) whatever the data: the launch never completes. Libraries compile code as a trap on architectures that lack what it needs (CUTLASS's `NamedBarrier` below sm_90; an `#if __CUDA_ARCH__` branch ending in `__trap()`), so this usually means the file was read for another architecture than its build's. A trap ends the thread's path, so nothing after it is checked: such a kernel is never called clean.",
    help: "Run with `--arch` set to the build's architecture (`--arch sm_90a`), or let autosync read it from the build's compile_commands.json (`-p BUILD_DIR`).",
};

/// `pdl-nc-load`.
pub const PDL_NC_LOAD: Rule = Rule {
    id: "pdl-nc-load",
    noun: "a read-only load after the grid-dependency wait",
    severity: Severity::Warning,
    short: "Read-only-path load placed after a programmatic-dependent-launch wait",
    full: "A load through the read-only path (`__ldg`, `ld.global.nc`) follows `cudaGridDependencySynchronize()` / `griddepcontrol.wait`. Such a load promises the data does not change while the kernel runs, so the compiler may move it above the wait, where it can read what the previous grid has not written yet. It orders nothing within a block, so it is a warning, not a race.",
    help: "Load data the previous grid writes with a plain load (drop `__ldg`, or `ld.global` without `.nc`); keep `__ldg` for data no earlier grid in the stream writes.",
};

/// `inconclusive`.
pub const INCONCLUSIVE: Rule = Rule {
    id: "inconclusive",
    noun: "an undecided part",
    severity: Severity::Warning,
    short: "The checker could not decide part of the kernel",
    full: "Part of the kernel could not be decided (a missing concrete value, an unsupported construct, or the solver budget ran out); autosync never calls such a kernel clean.",
    help: "Give the missing value (`--param`, `--block-dim`, autosync.yaml) or raise `--timeout`; this finding cannot be suppressed.",
};

/// Every rule autosync reports. New rules go here so outputs and suppressions know them.
pub const RULES: &[Rule] = &[
    RACE,
    BENIGN_RACE,
    LAYOUT_RACE,
    BARRIER_DIVERGENCE,
    DEADLOCK,
    COUNT_MISMATCH,
    TOO_MANY_PARTICIPANTS,
    ARRIVE_ONLY,
    UNSAFE_RECYCLING,
    BAD_ID,
    BAD_COUNT,
    MBARRIER_UNINITIALIZED,
    MBARRIER_OVERFLOW,
    MBARRIER_PARITY,
    MBARRIER_TX,
    MBARRIER_PHASE_ORDER,
    MISSING_PROXY_FENCE,
    STORE_SOURCE_REUSE,
    ALWAYS_TRAPS,
    PDL_NC_LOAD,
    INCONCLUSIVE,
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// Rule names users may write that stand for another rule.
const ALIASES: &[(&str, &str)] = &[("divergence", "barrier-divergence")];

/// Findings that are about the tool, not the code: suppressing them would turn "could not
/// decide" into "clean".
pub const UNSUPPRESSIBLE: &[&str] = &[INCONCLUSIVE.id];

/// The rule a user-written name means (aliases resolved).
pub fn canonical_rule(name: &str) -> &str {
    ALIASES.iter().find(|(a, _)| *a == name).map_or(name, |(_, r)| r)
}

/// Checks a user-written rule name: its canonical form, or why it cannot be used.
pub fn check_rule(name: &str) -> Result<String, String> {
    let rule = canonical_rule(name);
    if UNSUPPRESSIBLE.contains(&rule) {
        return Err(format!(
            "`{name}` findings cannot be suppressed (give the missing value with --param or autosync.yaml, or exclude the file)"
        ));
    }
    if RULES.iter().any(|r| r.id == rule) {
        Ok(rule.to_string())
    } else {
        let known: Vec<&str> = RULES
            .iter()
            .map(|r| r.id)
            .filter(|r| !UNSUPPRESSIBLE.contains(r))
            .collect();
        Err(format!("unknown rule `{name}` (rules: {})", known.join(", ")))
    }
}
