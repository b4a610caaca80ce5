//! Benchmark: block-wide synthesis over the corpus, MaxSAT strategy vs the naive baseline.
//!
//! Run: `cargo bench --bench synthesis`. For every corpus kernel that `fix` handles with
//! block-wide barriers (named-barrier kernels are skipped), prints the time and oracle calls of
//! both strategies (median of 3 runs), the time of the MaxSAT strategy's first (planning)
//! oracle call, and their ratio; then the median and maximum over the
//! corpus, the kernels above the targets, and the kernels whose races were all classified by the
//! oracle but needed more than 2 oracle calls.
//! `AUTOSYNC_BENCH_FILTER=real/` restricts the run to kernels whose manifest path starts with it.
//!
//! The realistic kernels (`corpus/real/`) are also measured racy, the workload users have: every
//! block-wide barrier of the kernel removed (in the IR), then fixed with the MaxSAT strategy only
//! (the naive baseline inserts and removes barriers one check at a time: minutes on these). Their
//! median and maximum are printed on a line of their own.

use autosync::front;
use autosync::synth::block::{synthesize, synthesize_naive, Outcome};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest;
use autosync_devtools::workload::without_barriers;
use autosync_oracle::ir::Kernel;
use autosync_oracle::report::IterRelation;
use autosync_oracle::tree::uses_named_barriers;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One measured kernel: the median time of the MaxSAT strategy and its outcome.
struct Measured {
    time: Duration,
    name: String,
}

/// Synthesizes `k` three times with the MaxSAT strategy (and the naive one, when `naive`),
/// prints one line and returns the MaxSAT median. Records `name` in `over_calls` when every
/// race was classified but more than 2 oracle calls were needed.
fn measure(name: &str, k: &Kernel, naive: bool, opts: &SynthOptions, over_calls: &mut Vec<String>) -> Measured {
    let mut t_m = Vec::new();
    let mut t_n = Vec::new();
    let mut plan = Vec::new();
    let (mut s_m, mut s_n) = (None, None);
    for _ in 0..3 {
        let t = Instant::now();
        let s = synthesize(k, opts);
        t_m.push(t.elapsed());
        plan.push(s.stats.planning);
        s_m = Some(s);
        if naive {
            let t = Instant::now();
            s_n = Some(synthesize_naive(k, opts));
            t_n.push(t.elapsed());
        }
    }
    let s_m = s_m.unwrap();
    let dm = median(t_m);
    let planning = median(plan);
    let outcome = match &s_m.outcome {
        Outcome::AlreadyClean => "clean".to_string(),
        Outcome::Fixed { barriers, cost } => format!("fixed {} (cost {cost})", barriers.len()),
        Outcome::Partial { barriers, cost, .. } => format!("partial {} (cost {cost})", barriers.len()),
        Outcome::Unfixable(_) => "unfixable".to_string(),
        Outcome::Inconclusive(_) => "inconclusive".to_string(),
    };
    let (naive_time, naive_calls, ratio) = match s_n {
        Some(s_n) => {
            let dn = median(t_n);
            (
                format!("{dn:.2?}"),
                s_n.stats.oracle_calls.to_string(),
                format!("{:.1}", dn.as_secs_f64() / dm.as_secs_f64().max(1e-9)),
            )
        }
        None => ("-".into(), "-".into(), "-".into()),
    };
    println!(
        "{:<40} {:>10.2?} {:>6} {:>10.2?} {:>10} {:>6} {:>7}  {outcome}",
        name, dm, s_m.stats.oracle_calls, planning, naive_time, naive_calls, ratio
    );
    let classified = s_m
        .initial
        .races
        .iter()
        .all(|r| !r.relations.contains(&IterRelation::Unknown));
    if classified && s_m.stats.oracle_calls > 2 {
        over_calls.push(format!("{name} ({} calls)", s_m.stats.oracle_calls));
    }
    Measured {
        time: dm,
        name: name.to_string(),
    }
}

/// Prints the median and maximum of `times` under `what`, and the kernels over 1 s.
fn summary(what: &str, mut times: Vec<Measured>) {
    if times.is_empty() {
        return;
    }
    times.sort_by_key(|m| m.time);
    let med = &times[times.len() / 2];
    let max = &times[times.len() - 1];
    println!(
        "{what}: median {:.2?}, max {:.2?} ({}) over {} kernels",
        med.time,
        max.time,
        max.name,
        times.len()
    );
    let slow: Vec<_> = times
        .iter()
        .filter(|t| t.time > Duration::from_secs(1))
        .map(|t| t.name.clone())
        .collect();
    println!(
        "{what}, kernels over 1 s: {}",
        if slow.is_empty() {
            "none".into()
        } else {
            slow.join(", ")
        }
    );
}

fn main() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let opts = SynthOptions::default();
    let mut maxsat_times = Vec::new();
    let mut racy_times = Vec::new();
    let mut over_calls = Vec::new();
    println!(
        "{:<40} {:>10} {:>6} {:>10} {:>10} {:>6} {:>7}  outcome",
        "kernel", "maxsat", "calls", "planning", "naive", "calls", "ratio"
    );
    // `AUTOSYNC_BENCH_FILTER=real/` measures only the kernels whose path starts with it.
    let filter = std::env::var("AUTOSYNC_BENCH_FILTER").unwrap_or_default();
    for e in m.kernels.iter().filter(|e| e.path.starts_with(&filter)) {
        let k = front::load(&e.file(Path::new("corpus")), &e.front_options())
            .expect("lowers")
            .kernels
            .remove(0);
        if uses_named_barriers(&k) {
            continue;
        }
        maxsat_times.push(measure(&e.path, &k, true, &opts, &mut over_calls));
        if e.path.starts_with("real/") {
            if let Some(racy) = without_barriers(&k) {
                let name = format!("{} -barriers", e.path);
                racy_times.push(measure(&name, &racy, false, &opts, &mut over_calls));
            }
        }
    }
    summary("maxsat synthesis", maxsat_times);
    summary("racy realistic kernels (barriers removed)", racy_times);
    println!(
        "classified kernels needing more than 2 oracle calls: {}",
        if over_calls.is_empty() {
            "none".into()
        } else {
            over_calls.join(", ")
        }
    );
}
