//! Benchmark: named-barrier synthesis over the warp-specialized corpus group.
//!
//! Run: `cargo bench --bench named_synthesis`. For every kernel of the `named` group prints the
//! synthesis time (median of 3 runs), oracle calls, MaxSAT solves and the outcome; kernels that
//! are already correct are also measured with their barriers stripped ("<path> [stripped]"),
//! which is the interesting case for them. Ends with the median and maximum time.

use autosync::front;
use autosync::synth::named::{synthesize, NamedOutcome};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest;
use autosync_oracle::ir::{Kernel, StmtKind};
use autosync_oracle::tree::{for_each_stmt, remove_stmts};
use std::path::Path;
use std::time::{Duration, Instant};

fn strip(k: &Kernel) -> Kernel {
    let mut labels = Vec::new();
    for_each_stmt(&k.body, &mut |s| {
        if matches!(s.kind, StmtKind::Barrier(..)) {
            labels.push(s.label);
        }
    });
    remove_stmts(k, &labels)
}

fn main() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let opts = SynthOptions::default();
    let mut times = Vec::new();
    println!(
        "{:<48} {:>10} {:>6} {:>7}  outcome",
        "kernel", "time", "oracle", "maxsat"
    );
    for e in m.kernels.iter().filter(|e| e.group == "named") {
        let k = front::load(&e.file(Path::new("corpus")), &e.front_options())
            .expect("lowers")
            .kernels
            .remove(0);
        let mut cases = vec![(e.path.clone(), k.clone())];
        if e.check.outcome == "clean" && e.original_barriers.unwrap_or(0) > 0 {
            cases.push((format!("{} [stripped]", e.path), strip(&k)));
        }
        for (name, k) in cases {
            let mut ts = Vec::new();
            let mut last = None;
            for _ in 0..3 {
                let t = Instant::now();
                last = Some(synthesize(&k, &opts));
                ts.push(t.elapsed());
            }
            ts.sort();
            let d: Duration = ts[1];
            times.push(d);
            let s = last.expect("ran");
            let outcome = match &s.outcome {
                NamedOutcome::AlreadyClean => "clean".to_string(),
                NamedOutcome::Fixed { barriers, cost } => format!("fixed {} (cost {cost:.4})", barriers.len()),
                NamedOutcome::Unfixable(w) => format!("unfixable ({})", w[0].reason()),
                NamedOutcome::Inconclusive(m) => format!("inconclusive: {m}"),
            };
            println!(
                "{:<48} {:>10.2?} {:>6} {:>7}  {outcome}",
                name, d, s.stats.oracle_calls, s.stats.maxsat_calls
            );
        }
    }
    times.sort();
    if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
        println!("\n{} runs: median {med:.2?}, max {max:.2?}", times.len());
    }
}
