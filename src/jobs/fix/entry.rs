//! Report entries of a kernel's fix: the clean entry every outcome starts from, the record of
//! each barrier, and which races each barrier orders alone or with others.

use super::describe::race_pair;
use crate::output::fixes::{BarrierJson, KernelFix, StatsJson};
use crate::synth::space::SynthStats;
use autosync_oracle::ir::Kernel;
use autosync_oracle::report::{Race, Report};
use autosync_oracle::tree::{LabelTree, Position};

/// A "clean" result carrying what every synthesis outcome reports: its statistics, the
/// input's races and the checker's report on the input. Outcomes override the rest.
pub(super) fn kernel_fix(k: &Kernel, stats: &SynthStats, initial: &Report, suppressed: &Report) -> KernelFix {
    KernelFix {
        kernel: k.name.clone(),
        status: "clean",
        barriers: vec![],
        cost: 0.0,
        reasons: vec![],
        stats: StatsJson {
            oracle_calls: stats.oracle_calls,
            maxsat_calls: stats.maxsat_calls,
            rounds: stats.rounds,
            millis: stats.time.as_secs_f64() * 1000.0,
        },
        races: initial.races.iter().map(|r| race_pair(k, r)).collect(),
        minimized: None,
        notes: vec![],
        initial: Some(initial.clone()),
        suppressed: suppressed.clone(),
    }
}

/// A barrier ordering the races `covers` (indexes into the initial report's races), before
/// its lines are known.
pub(super) fn barrier_json(k: &Kernel, pos: Position, text: &str, cost: f64, covers: &[usize]) -> BarrierJson {
    BarrierJson {
        at: position_offset(k, pos),
        text: text.to_string(),
        cost,
        covers_races: covers.to_vec(),
        ..Default::default()
    }
}

/// Splits each barrier's races into those it alone orders (`covers`) and those other
/// barriers order with it (`shares`), as deduplicated line pairs.
pub(super) fn attribute(k: &Kernel, races: &[Race], barriers: &mut [BarrierJson]) {
    let mut count = vec![0usize; races.len()];
    for b in barriers.iter() {
        for &i in &b.covers_races {
            if let Some(c) = count.get_mut(i) {
                *c += 1;
            }
        }
    }
    for b in barriers.iter_mut() {
        let (mut alone, mut shared) = (Vec::new(), Vec::new());
        for &i in &b.covers_races {
            let Some(r) = races.get(i) else { continue };
            let pair = race_pair(k, r);
            let list = if count[i] == 1 { &mut alone } else { &mut shared };
            if !list.contains(&pair) {
                list.push(pair);
            }
        }
        b.covers = alone;
        b.shares = shared;
    }
}

/// The byte offset in the original text where a barrier at `pos` goes (orders barriers).
fn position_offset(k: &Kernel, pos: Position) -> u32 {
    let tree = LabelTree::new(k);
    let info = tree.get(pos.label());
    match pos {
        Position::BlockStart(_) => info.span.lo,
        _ => info.span.hi,
    }
}
