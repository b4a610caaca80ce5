//! Benchmark: block-wide synthesis over the corpus, MaxSAT strategy vs the naive baseline.
//!
//! Run: `cargo bench --bench synthesis`. For every corpus kernel that `fix` handles with
//! block-wide barriers (named-barrier kernels are skipped), prints the time and oracle calls of
//! both strategies (median of 3 runs) and their ratio; then the median and maximum over the
//! corpus, the kernels above the targets, and the kernels whose races were all classified by the
//! oracle but needed more than 2 oracle calls.
//! `AUTOSYNC_BENCH_FILTER=real/` restricts the run to kernels whose manifest path starts with it.

use autosync::front;
use autosync::synth::block::{synthesize, synthesize_naive, Outcome};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest;
use autosync_oracle::report::IterRelation;
use autosync_oracle::tree::uses_named_barriers;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let opts = SynthOptions::default();
    let mut maxsat_times = Vec::new();
    let mut over_calls = Vec::new();
    println!(
        "{:<40} {:>10} {:>6} {:>10} {:>6} {:>7}  outcome",
        "kernel", "maxsat", "calls", "naive", "calls", "ratio"
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
        let mut t_m = Vec::new();
        let mut t_n = Vec::new();
        let (mut s_m, mut s_n) = (None, None);
        for _ in 0..3 {
            let t = Instant::now();
            s_m = Some(synthesize(&k, &opts));
            t_m.push(t.elapsed());
            let t = Instant::now();
            s_n = Some(synthesize_naive(&k, &opts));
            t_n.push(t.elapsed());
        }
        let (s_m, s_n) = (s_m.unwrap(), s_n.unwrap());
        let (dm, dn) = (median(t_m), median(t_n));
        let outcome = match &s_m.outcome {
            Outcome::AlreadyClean => "clean".to_string(),
            Outcome::Fixed { barriers, cost } => format!("fixed {} (cost {cost})", barriers.len()),
            Outcome::Partial { barriers, cost, .. } => format!("partial {} (cost {cost})", barriers.len()),
            Outcome::Unfixable(_) => "unfixable".to_string(),
            Outcome::Inconclusive(_) => "inconclusive".to_string(),
        };
        println!(
            "{:<40} {:>10.2?} {:>6} {:>10.2?} {:>6} {:>7.1}  {outcome}",
            e.path,
            dm,
            s_m.stats.oracle_calls,
            dn,
            s_n.stats.oracle_calls,
            dn.as_secs_f64() / dm.as_secs_f64().max(1e-9)
        );
        let classified = s_m
            .initial
            .races
            .iter()
            .all(|r| !r.relations.contains(&IterRelation::Unknown));
        if classified && s_m.stats.oracle_calls > 2 {
            over_calls.push(format!("{} ({} calls)", e.path, s_m.stats.oracle_calls));
        }
        maxsat_times.push((dm, e.path.clone()));
    }
    maxsat_times.sort();
    let med = &maxsat_times[maxsat_times.len() / 2];
    let max = &maxsat_times[maxsat_times.len() - 1];
    println!(
        "maxsat synthesis: median {:.2?}, max {:.2?} ({}) over {} kernels",
        med.0,
        max.0,
        max.1,
        maxsat_times.len()
    );
    let slow: Vec<_> = maxsat_times
        .iter()
        .filter(|t| t.0 > Duration::from_secs(1))
        .map(|t| t.1.clone())
        .collect();
    println!(
        "kernels over 1 s: {}",
        if slow.is_empty() {
            "none".into()
        } else {
            slow.join(", ")
        }
    );
    println!(
        "classified kernels needing more than 2 oracle calls: {}",
        if over_calls.is_empty() {
            "none".into()
        } else {
            over_calls.join(", ")
        }
    );
}
