//! The brute-force executor: the independent reference the symbolic race checker is tested
//! against. It runs every thread of every block concretely under the SDV semantics (lock-step,
//! predicated execution) and reports the label pairs whose accesses conflicted.
//!
//! Semantic choices (the checker must agree on these for the differential tests):
//! - Threads that executed `return` (or whose `assume` failed) have *exited*: a block-wide
//!   barrier does not wait for them, so it is divergent only if a live thread is disabled there,
//!   and it still ends the epoch of their earlier accesses.
//! - `__syncwarp` (its mask is not in the IR) orders the lanes of a warp only when all live
//!   lanes of that warp reach it; a warp only partly there gets no ordering and the barrier is
//!   listed in [`ExecReport::divergent_warp_barriers`].
//! - With `launch.warp_sync = Some(n)`, threads of one n-thread group run in lock step: between
//!   them only two stores of the same statement to the same byte conflict.
//! - Reads return the stored bytes (initially pseudo-random from the seed); `Opaque` values are
//!   a hash of their operands; an atomic stores `old + 1` (like `atomicAdd(p, 1)`).
//! - Never-assigned locals and [`crate::ir::Expr::Unknown`] values read as pseudo-random values
//!   that differ per thread (C leaves them indeterminate; threads need not agree); float
//!   (`Opaque`) parameters without a value get a pseudo-random uniform value; integer parameters
//!   without a value are an error when read.
//! - A block-wide vote (`Expr::Vote`) combines the predicates of the threads that execute its
//!   assignment together, i.e. the ones that reached its barrier.
//! - Shifts by the width or more follow SMT-LIB (0, or all sign bits for a signed `>>`).
//!
//! [`execute_warps`] is the second reference, for what the lock-step model cannot run (named
//! barriers with counts, mbarriers, asynchronous copies): every thread of one block runs on
//! its own program counter, interleaved warp by warp (or lane by lane) by a [`Schedule`], with
//! happens-before by vector clocks; see `machine.rs`.

mod async_ops;
mod block;
mod clock;
mod config;
mod conflicts;
mod eval;
mod findings;
mod machine;
mod memory;
mod program;
mod proxy;
mod schedule;
mod sync;
mod value;

use crate::ir::{ArrayId, Barrier, Kernel, Label, StmtKind};
use crate::report::ThreadId;
use crate::tree::{for_each_stmt, LabelTree};
use block::{BlockRun, GridState};
pub use clock::AccessSite;
pub use config::{ExecConfig, ExecError};
pub use findings::{RacePair, WarpDefect, WarpRace, WarpReport};
use machine::Machine;
pub use schedule::Schedule;
use std::collections::{BTreeMap, BTreeSet};

/// Most threads a block may have (CUDA's limit).
const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Most blocks the executor runs (a guard: the executor is meant for tiny grids).
const MAX_BLOCKS: u64 = 64;

/// A pair of statements whose accesses conflicted in the execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExecRace {
    /// The statement earlier in text order (post-order of the label tree).
    pub first: Label,
    /// The statement later in text order (may equal `first`).
    pub second: Label,
    /// The array.
    pub array: ArrayId,
    /// Whether the two threads were in different blocks (global memory only).
    pub inter_block: bool,
}

/// The first conflicting access pair seen for an [`ExecRace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecWitness {
    /// The threads that made the `first` and the `second` label's access.
    pub threads: [ThreadId; 2],
    /// The byte offset into the array both touched.
    pub byte_offset: u64,
}

/// What one execution of the grid showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecReport {
    /// Every racing label pair per array.
    pub races: BTreeSet<ExecRace>,
    /// The races of `races` seen only as stores of the same value to the same bytes (benign).
    pub benign: BTreeSet<ExecRace>,
    /// One witness per race.
    pub witnesses: BTreeMap<ExecRace, ExecWitness>,
    /// Block-wide barriers reached by only some of the block's live threads.
    pub divergent_barriers: BTreeSet<Label>,
    /// `__syncwarp`s reached by only some live lanes of a warp (they ordered nothing there).
    pub divergent_warp_barriers: BTreeSet<Label>,
    /// Shared and global memory accesses made (one per thread and access).
    pub accesses: u64,
    /// Statement executions summed over all blocks.
    pub steps: u64,
    /// Whether some `assume` was false for some thread (that thread's path was dropped).
    pub assume_failed: bool,
}

/// Runs every block of the grid and reports races and divergent barriers.
pub fn execute(k: &Kernel, cfg: &ExecConfig) -> Result<ExecReport, ExecError> {
    check_config(k, cfg)?;
    check_supported(k)?;
    let mut grid = GridState::new();
    let [gx, gy, gz] = cfg.grid_dim;
    let mut block_lin = 0u32;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                BlockRun::new(k, cfg, &mut grid, [x, y, z], block_lin).run()?;
                block_lin += 1;
            }
        }
    }
    Ok(report(k, cfg, grid))
}

/// Runs block 0 of `cfg`'s launch once per schedule and merges what the runs showed: the
/// warp-scheduling reference the named-barrier and pipeline checker is tested against.
pub fn execute_warps(k: &Kernel, cfg: &ExecConfig, schedules: &[Schedule]) -> Result<WarpReport, ExecError> {
    check_config(k, cfg)?;
    let mut all = WarpReport::default();
    for (i, s) in schedules.iter().enumerate() {
        all.merge(Machine::new(k, cfg).run(*s)?, i);
    }
    Ok(all)
}

fn check_config(k: &Kernel, cfg: &ExecConfig) -> Result<(), ExecError> {
    let count = |d: [u32; 3]| d.iter().map(|&x| x as u64).product::<u64>();
    if cfg.block_dim.contains(&0) || count(cfg.block_dim) > MAX_THREADS_PER_BLOCK {
        return Err(ExecError::BadConfig(format!("blockDim {:?}", cfg.block_dim)));
    }
    if cfg.grid_dim.contains(&0) || count(cfg.grid_dim) > MAX_BLOCKS {
        return Err(ExecError::BadConfig(format!(
            "gridDim {:?} (at most {MAX_BLOCKS} blocks)",
            cfg.grid_dim
        )));
    }
    if k.launch.warp_sync == Some(0) {
        return Err(ExecError::BadConfig("warp-sync group of 0 threads".into()));
    }
    Ok(())
}

/// Rejects barriers the lock-step model cannot express, wherever they are.
fn check_supported(k: &Kernel) -> Result<(), ExecError> {
    if crate::tree::first_async_op(k).is_some() {
        return Err(ExecError::Unsupported(
            "mbarriers and asynchronous copies (the warp-scheduling reference runs them)".into(),
        ));
    }
    let mut bad = None;
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            if !b.is_block_wide() && *b != Barrier::Warp && bad.is_none() {
                bad = Some(s.label);
            }
        }
    });
    match bad {
        Some(l) => Err(ExecError::Unsupported(format!(
            "named barrier with a thread count at label {}",
            l.0
        ))),
        None => Ok(()),
    }
}

/// Orders every racing pair by text order and builds the report.
fn report(k: &Kernel, cfg: &ExecConfig, grid: GridState) -> ExecReport {
    let tree = LabelTree::new(k);
    let post = |l: Label| tree.info.get(&l).map_or(u32::MAX, |i| i.post);
    let mut races = BTreeSet::new();
    let mut benign = BTreeSet::new();
    let mut witnesses = BTreeMap::new();
    let mut harmful = BTreeSet::new();
    let mut all = Vec::new();
    for (c, inter_block) in [(grid.intra, false), (grid.inter, true)] {
        // Harmful witnesses first: they are the ones a report should show.
        all.extend(c.harmful.into_iter().map(|(race, w)| (race, w, inter_block, false)));
        all.extend(c.same_value.into_iter().map(|(race, w)| (race, w, inter_block, true)));
    }
    for ((a, b, array), w, inter_block, same_value) in all {
        let mut threads = [thread_id(w.earlier, cfg), thread_id(w.later, cfg)];
        let (first, second) = if (post(a), a) <= (post(b), b) {
            (a, b)
        } else {
            threads.swap(0, 1);
            (b, a)
        };
        let race = ExecRace {
            first,
            second,
            array,
            inter_block,
        };
        races.insert(race);
        if same_value {
            benign.insert(race);
        } else {
            harmful.insert(race);
        }
        witnesses.entry(race).or_insert(ExecWitness {
            threads,
            byte_offset: w.byte,
        });
    }
    // A pair seen both as equal and as different stores is harmful.
    benign.retain(|r| !harmful.contains(r));
    ExecReport {
        races,
        benign,
        witnesses,
        divergent_barriers: grid.divergent,
        divergent_warp_barriers: grid.divergent_warp,
        accesses: grid.accesses,
        steps: grid.steps,
        assume_failed: grid.assume_failed,
    }
}

/// 3-D coordinates of a linear (block, thread) pair, x fastest as in CUDA.
fn thread_id(who: block::Who, cfg: &ExecConfig) -> ThreadId {
    let unflatten = |lin: u32, d: [u32; 3]| [lin % d[0], lin / d[0] % d[1], lin / d[0] / d[1]];
    ThreadId {
        thread: unflatten(who.thread, cfg.block_dim),
        block: unflatten(who.block, cfg.grid_dim),
    }
}

#[cfg(test)]
mod tests;
