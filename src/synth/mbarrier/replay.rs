//! The second verification of an mbarrier placement: the warp-scheduling reference executor
//! (`autosync_oracle::exec::execute_warps`) runs the patched kernel the named checker accepted
//! under up to eight schedules, and a race, deadlock or mbarrier defect it observes rejects the
//! placement. Only a kernel it can run concretely and quickly is replayed (a `blockDim`, every
//! integer parameter it reads given, no warp-synchronous lock step assumed, its first schedule
//! within [`FIRST_STEPS`]), and only as many schedules as fit [`TOTAL_STEPS`]; otherwise the
//! named checker's verdict stands alone, as it did before the replay existed.

use autosync_oracle::exec::{execute_warps, ExecConfig, Schedule, WarpReport};
use autosync_oracle::ir::{ArrayId, Kernel, Label};
use autosync_oracle::report::Report;
use std::collections::BTreeSet;

/// Pseudo-random schedules besides the five fixed ones.
const RANDOM_SCHEDULES: u64 = 3;

/// Statement executions the first schedule may take: a kernel longer than this is not
/// replayed (about 0.1 s lost on it; the corpus rings take 1,000-40,000).
const FIRST_STEPS: u64 = 100_000;

/// Statement executions of all schedules together: further schedules run while the first one's
/// count still fits (a fix stays within about 0.4 s of replay).
const TOTAL_STEPS: u64 = 400_000;

/// What the replay showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replay {
    /// This many schedules ran to their end without a race or defect.
    Clean(usize),
    /// A race or defect, in words.
    Rejected(String),
    /// The executor cannot run this kernel (why).
    NotRun(String),
}

/// Replays `k`, which the named checker reported as `checked` (clean): a race pair it reports
/// as benign (equal values) is not a rejection.
pub fn replay(k: &Kernel, checked: &Report) -> Replay {
    let Some(mut cfg) = ExecConfig::from_launch(&k.launch) else {
        return Replay::NotRun("no concrete blockDim".into());
    };
    if k.launch.warp_sync.is_some() {
        // The executor interleaves lanes freely; it would reject what lock step orders.
        return Replay::NotRun("warp-synchronous execution is assumed".into());
    }
    let benign = benign_pairs(checked);
    let (mut spent, mut ran) = (0, 0);
    for s in Schedule::standard(RANDOM_SCHEDULES) {
        cfg.max_steps = if ran == 0 { FIRST_STEPS } else { TOTAL_STEPS - spent };
        let r = match execute_warps(k, &cfg, &[s]) {
            Ok(r) => r,
            Err(e) if ran == 0 => return Replay::NotRun(e.to_string()),
            Err(_) => break, // out of budget (or a schedule the first did not show): enough
        };
        if let Some(why) = rejection(&r, &benign) {
            return Replay::Rejected(why);
        }
        ran += 1;
        spent += r.steps;
        if spent + r.steps > TOTAL_STEPS {
            break;
        }
    }
    Replay::Clean(ran)
}

/// The benign race pairs of a checker report, labels ascending as the executor keys them.
fn benign_pairs(r: &Report) -> BTreeSet<(Label, Label, ArrayId)> {
    r.benign
        .iter()
        .map(|x| {
            let (a, b) = (x.first.label, x.second.label);
            (a.min(b), a.max(b), x.array)
        })
        .collect()
}

/// Why `r` rejects the kernel, if it does.
fn rejection(r: &WarpReport, benign: &BTreeSet<(Label, Label, ArrayId)>) -> Option<String> {
    if let Some(d) = r.defects.keys().next() {
        return Some(format!("the reference executor finds a {} ({d:?})", d.name()));
    }
    r.races
        .keys()
        .find(|pair| !benign.contains(pair))
        .map(|(a, b, _)| format!("the reference executor finds a race between labels {} and {}", a.0, b.0))
}
