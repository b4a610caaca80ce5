//! Named-barrier placement for warp-specialized kernels.
//!
//! Races are turned into requirements ([`needs`]): in-region races need a block-wide or
//! sub-block `bar.sync` between the accesses; cross-role races need a producer/consumer channel
//! (`bar.arrive` after the write in one role, `bar.sync` before the read in the other, or syncs on
//! both sides). A weighted MaxSAT instance picks the cheapest set of options, IDs are assigned
//! from the allowed set, and the named-barrier checker verifies the candidate. New races become
//! new requirements; synchronization defects (deadlock, recycling, counts) forbid the current
//! choice. Nothing unverified is ever returned as fixed.
//!
//! For role loops, two probe checks decide whether anything flows back from the consumer side to
//! a later producer iteration, and at which distance (1 or at least 2), so that double-buffered
//! loops get one synchronizing channel instead of a full/empty pair.
//!
//! This module runs the stages: `outcome.rs` and `placed.rs` are what synthesis answers,
//! `facts.rs` and `costs.rs` what it reads off the kernel and the cost model, `state.rs` what
//! the refinement has learned, `probe.rs` the back-flow probes, `encoding.rs` the MaxSAT
//! instance, `ids.rs` ID assignment, `refine.rs` the rounds, `back_pressure.rs` the repair of
//! the kernel's own recycled barriers and `copies.rs` races with asynchronous copies.

mod back_pressure;
mod copies;
mod costs;
mod encoding;
mod facts;
pub mod guard;
mod ids;
pub mod needs;
mod outcome;
mod placed;
mod probe;
mod refine;
pub mod roles;
pub mod settings;
mod state;
pub mod style;

#[cfg(test)]
mod tests;

pub use costs::{base_cost, existing_cost, sync_factor};
pub use facts::{has_computed_ids, style_for, used_ids};
pub use outcome::{NamedOutcome, NamedSynthesis, NamedUnfixable};
pub use placed::{apply, NamedPlaced};
pub use settings::{parse_id_set, NamedKind, NamedSettings, NamedStyle};

use super::space::{Space, SynthOptions, SynthStats};
use crate::vocab::defects::sync_rule;
use autosync_oracle::ir::Kernel;
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::Report;
use autosync_oracle::sdv::{self, Level};
use autosync_oracle::tree::LabelTree;
use back_pressure::back_pressure;
use copies::{async_copy_labels, blame_copies, touches_copy, COPY_ROUNDS};
use facts::available_ids;
use needs::Ctx;
use probe::probe_back_flow;
use refine::Refinement;
use roles::Roles;
use state::State;
use std::time::Instant;

/// The named checker's options for `k` under the synthesis options.
fn named_options(k: &Kernel, opts: &SynthOptions) -> NamedOptions {
    NamedOptions {
        warp_sync: k.launch.warp_sync.is_some(),
        timeout_ms: opts.timeout_ms,
    }
}

/// Synthesizes a verified named-barrier placement for `k` (requires a concrete blockDim).
pub fn synthesize(k: &Kernel, opts: &SynthOptions) -> NamedSynthesis {
    let start = Instant::now();
    let mut stats = SynthStats::default();
    let style = style_for(k, &opts.named);
    let nopts = named_options(k, opts);
    let (initial, suppressed) = opts.split_suppressed(k, named::check(k, &nopts));
    stats.oracle_calls += 1;
    let outcome = match screen(k, opts, &initial, &nopts, &mut stats) {
        Some(outcome) => outcome,
        None => blame_copies(k, &initial.races, place(k, opts, &initial, &nopts, &mut stats)),
    };
    stats.time = start.elapsed();
    NamedSynthesis {
        initial,
        suppressed,
        outcome,
        stats,
        style,
    }
}

/// The outcome the input's report decides alone (undecided findings, the kernel's own
/// synchronization defects, repaired by back-pressure where possible, or no race); `None` when
/// there are races to place barriers for.
fn screen(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> Option<NamedOutcome> {
    if let Some(i) = initial.inconclusive.first() {
        return Some(NamedOutcome::Inconclusive(i.message.clone()));
    }
    if !initial.sync_defects.is_empty() || !initial.divergences.is_empty() {
        if let Some(placed) = back_pressure(k, opts, initial, nopts, stats) {
            let cost = placed.iter().map(|p| p.cost).sum();
            return Some(NamedOutcome::Fixed { barriers: placed, cost });
        }
        let mut why: Vec<NamedUnfixable> = initial
            .sync_defects
            .iter()
            .map(|d| NamedUnfixable::SyncDefect(sync_rule(&d.kind).noun.into()))
            .collect();
        why.extend(
            initial
                .divergences
                .iter()
                .map(|d| NamedUnfixable::SyncDefect(format!("divergent barrier at {}", k.loc(d.span)))),
        );
        return Some(NamedOutcome::Unfixable(why));
    }
    if initial.races.is_empty() {
        return Some(NamedOutcome::AlreadyClean);
    }
    if initial.races.iter().any(|r| r.assumed) {
        return Some(NamedOutcome::Inconclusive(
            "the solver could not decide a race; the placement could not be verified".into(),
        ));
    }
    None
}

/// Places barriers for the input's races: a requirement per race, back-flow probes for role
/// loops, then rounds of solving, checking and refining.
fn place(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> NamedOutcome {
    let unif = sdv::uniformity(k);
    let Some(roles) = Roles::new(k, &unif) else {
        return NamedOutcome::Inconclusive("named-barrier synthesis needs a concrete blockDim".into());
    };
    let cx = Ctx {
        k,
        tree: LabelTree::new(k),
        roles: &roles,
        unif: &unif,
        space: Space::build(k, opts, Level::Warp),
        cands: needs::emittable(k),
    };
    let avail = available_ids(k, opts);
    let mut st = match State::from_races(&cx, &initial.races) {
        Ok(st) => st,
        Err(outcome) => return outcome,
    };
    probe_back_flow(&cx, &mut st, &avail, nopts, stats);
    let mut refinement = Refinement {
        cx: &cx,
        opts,
        nopts,
        avail: &avail,
        races: &initial.races,
        st,
        max_rounds: opts.max_rounds,
        copy_races: false,
    };
    let copies = async_copy_labels(k);
    if initial.races.iter().any(|r| touches_copy(&copies, r)) {
        refinement.copy_races = true;
        refinement.max_rounds = refinement.max_rounds.min(COPY_ROUNDS);
    }
    refinement.run(stats)
}
