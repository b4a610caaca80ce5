//! Benchmark: where the SDV checker's time goes, per kernel — phases (uniformity, decided
//! branches, barrier intervals, conflict queries) and every solver call (count, terms, time,
//! answer, which solver answered).
//!
//! Run: `cargo bench --bench sdv_profile [-- PATH_SUBSTRING]`. For every corpus kernel checked by
//! the SDV checker (only those whose path contains the argument, when one is given), prints one
//! line of totals (solver calls; of them the satisfiable ones; queries the GCD test settled
//! without a solver; searches for a model by evaluation, found / tried, and their time); then,
//! for the five slowest kernels, their phases and slowest solver calls and searches.
//! `AUTOSYNC_PROFILE_FILE=F` profiles the kernels of the file `F` instead (a development
//! suite's; the argument then filters kernel names), read with the toolkit at
//! `AUTOSYNC_PROFILE_CUDA` and the `-I` directories in `AUTOSYNC_PROFILE_INCLUDES` (`:`-separated).
//! `AUTOSYNC_PROFILE_RUNS=N` checks each kernel N times and reports the fastest run;
//! `AUTOSYNC_PROFILE_CALLS=N` lists N calls per kernel.
//! `AUTOSYNC_PROFILE_RACY=1` profiles what `fix` asks first instead: each kernel with every
//! block-wide barrier removed, checked with synthesis's planning options (kernels without
//! barriers are skipped).

use autosync::front;
use autosync::synth::block::planning_options;
use autosync_devtools::manifest;
use autosync_devtools::workload::without_barriers;
use autosync_oracle::ir::Kernel;
use autosync_oracle::sdv::{self, Profile, QueryStat};
use autosync_oracle::tree::uses_named_barriers;
use std::path::Path;
use std::time::Instant;

/// The kernel to profile and the options to check it with (see the module's doc).
fn workload(k: Kernel, racy: bool) -> Option<(Kernel, sdv::SdvOptions)> {
    if !racy {
        return Some((k, sdv::SdvOptions::default()));
    }
    let quiet = sdv::SdvOptions {
        small_witnesses: false,
        ..Default::default()
    };
    without_barriers(&k).map(|k| (k, planning_options(&quiet)))
}

/// The first kernel of every corpus entry whose path contains `filter`, by path.
fn corpus_kernels(m: &manifest::Manifest, filter: Option<&str>) -> Vec<(String, Kernel)> {
    m.kernels
        .iter()
        .filter(|e| filter.is_none_or(|f| e.path.contains(f)))
        .map(|e| {
            let mut unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).expect("lowers");
            (e.path.clone(), unit.kernels.remove(0))
        })
        .collect()
}

/// Every kernel of the file `path` whose name contains `filter`, read with the toolkit at
/// `AUTOSYNC_PROFILE_CUDA` and the `-I` directories `AUTOSYNC_PROFILE_INCLUDES` lists
/// (separated by `:`), with the launches its host code writes.
fn file_kernels(path: &Path, filter: Option<&str>) -> Vec<(String, Kernel)> {
    let mut o = front::FrontOptions::default();
    o.clang.cuda_path = std::env::var_os("AUTOSYNC_PROFILE_CUDA").map(Into::into);
    o.include_dirs = std::env::var("AUTOSYNC_PROFILE_INCLUDES")
        .map(|v| v.split(':').filter(|d| !d.is_empty()).map(Into::into).collect())
        .unwrap_or_default();
    let unit = front::load(path, &o).unwrap_or_else(|e| panic!("{}: {}", path.display(), e.message));
    unit.kernels
        .into_iter()
        .filter(|k| filter.is_none_or(|f| k.name.contains(f)))
        .map(|k| (k.name.clone(), k))
        .collect()
}

fn main() {
    let racy = std::env::var("AUTOSYNC_PROFILE_RACY").is_ok_and(|v| v == "1");
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let mut runs: Vec<(f64, String, Kernel, Profile)> = Vec::new();
    println!(
        "{:<40} {:>9} {:>7} {:>9} {:>9} {:>8} {:>6} {:>15} {:>5} {:>17}",
        "kernel", "check", "calls", "solver", "max call", "terms", "qfbv", "sat (ms)", "gcd", "guessed (ms)"
    );
    let items = match std::env::var_os("AUTOSYNC_PROFILE_FILE") {
        Some(f) => file_kernels(Path::new(&f), filter.as_deref()),
        None => corpus_kernels(&m, filter.as_deref()),
    };
    for (name, k) in items {
        if uses_named_barriers(&k) {
            continue;
        }
        let Some((k, opts)) = workload(k, racy) else {
            continue;
        };
        // The fastest of `AUTOSYNC_PROFILE_RUNS` runs (default 1): the others are noise.
        let runs_wanted: usize = std::env::var("AUTOSYNC_PROFILE_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        let mut best: Option<(f64, Profile)> = None;
        for _ in 0..runs_wanted.max(1) {
            let t = Instant::now();
            let (_, p) = sdv::check_profiled(&k, &opts);
            let total = t.elapsed().as_secs_f64() * 1000.0;
            if best.as_ref().is_none_or(|(b, _)| total < *b) {
                best = Some((total, p));
            }
        }
        let (total, p) = best.expect("at least one run");
        // Solver calls and searches for a model by evaluation (`eval`), apart.
        let (guesses, calls): (Vec<&QueryStat>, Vec<&QueryStat>) = p.queries.iter().partition(|q| q.solver == "eval");
        // Queries the GCD test settled, apart from solver calls.
        let (gcd, calls): (Vec<&QueryStat>, Vec<&QueryStat>) = calls.into_iter().partition(|q| q.solver == "gcd");
        let solver: f64 = calls.iter().map(|q| q.millis).sum();
        let max = calls.iter().map(|q| q.millis).fold(0.0, f64::max);
        let mut sizes: Vec<usize> = calls.iter().map(|q| q.size).collect();
        sizes.sort();
        let median_size = sizes.get(sizes.len() / 2).copied().unwrap_or(0);
        let fallback = calls.iter().filter(|q| q.solver == "qfbv").count();
        let sat: Vec<f64> = calls.iter().filter(|q| q.result == "sat").map(|q| q.millis).collect();
        let found = guesses.iter().filter(|q| q.result == "sat").count();
        let guess_ms: f64 = guesses.iter().map(|q| q.millis).sum();
        println!(
            "{:<40} {:>7.1}ms {:>7} {:>7.1}ms {:>7.1}ms {:>8} {:>6} {:>6} ({:>6.1}) {:>5} {:>4}/{:<4} ({:>5.1})",
            name,
            total,
            calls.len(),
            solver,
            max,
            median_size,
            fallback,
            sat.len(),
            sat.iter().sum::<f64>(),
            gcd.len(),
            found,
            guesses.len(),
            guess_ms
        );
        runs.push((total, name, k, p));
    }
    runs.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (total, path, k, p) in runs.iter().take(5) {
        println!("\n{path}: {total:.1} ms");
        for (name, ms) in &p.phases {
            println!("  phase {name:<12} {ms:>9.1} ms");
        }
        let mut qs = p.queries.clone();
        qs.sort_by(|a, b| b.millis.total_cmp(&a.millis));
        // `AUTOSYNC_PROFILE_CALLS` slowest calls per kernel (default 8).
        let calls: usize = std::env::var("AUTOSYNC_PROFILE_CALLS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(8);
        for q in qs.iter().take(calls) {
            let line = |l| {
                autosync_oracle::tree::LabelTree::new(k)
                    .info
                    .get(&l)
                    .map_or(0, |i| k.line(i.span))
            };
            println!(
                "  call lines {:>4}-{:<4} {:<16} {:<5} {:>7} terms {:>8.1} ms {}",
                line(q.pair.0),
                line(q.pair.1),
                q.kind,
                q.solver,
                q.size,
                q.millis,
                q.result
            );
        }
    }
}
