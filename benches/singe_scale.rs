//! Benchmark: both checkers on a generated Singe-shaped kernel (long straight-line arithmetic in
//! warp-specialized roles exchanging values through shared memory; `autosync_devtools::singe`).
//!
//! Run: `cargo bench --bench singe_scale [-- WARPS PHASES LINES SLOTS]`. Three measurements, each
//! in a process of its own so that its peak resident memory is its own: the named-barrier
//! checker on the named-barrier variant, and the SDV and named checkers on the `bar.sync 0`-only
//! variant (`--warp-sync 32`, as the header line says). Prints lines of code, lowering and check
//! time, the verdict, the solver queries and the peak resident memory. Target: ≤5 s and ≤1 GB
//! per check. With `SINGE_PROFILE` set, each measurement also prints (to stderr) the races it
//! found and, for the SDV checker, where its time went.

use autosync::front::{lower_text, FrontOptions};
use autosync_devtools::singe::{singe_kernel, SingeShape};
use autosync_oracle::{named, sdv};
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// The SDV check, printing its phases and its solver calls by kind and result.
fn sdv_profiled(k: &autosync_oracle::ir::Kernel) -> autosync_oracle::report::Report {
    let (r, p) = sdv::check_profiled(k, &sdv::SdvOptions::default());
    let solver: f64 = p.queries.iter().map(|q| q.millis).sum();
    eprintln!(
        "phases (ms) {:?}; {} solver calls, {solver:.0} ms in the solver",
        p.phases,
        p.queries.len()
    );
    let mut by: BTreeMap<(String, &str, &str), (usize, f64)> = BTreeMap::new();
    for q in &p.queries {
        let e = by.entry((q.kind.clone(), q.solver, q.result)).or_default();
        e.0 += 1;
        e.1 += q.millis;
    }
    for ((kind, solver, result), (n, ms)) in by {
        eprintln!("  {kind} {solver} {result}: {n} calls, {ms:.0} ms");
    }
    r
}

/// The races found, as sorted (first label, second label, array, kind): to compare versions.
fn print_races(report: &autosync_oracle::report::Report) {
    let mut pairs: Vec<String> = report
        .races
        .iter()
        .map(|r| format!("{}-{}:{}:{:?}", r.first.label.0, r.second.label.0, r.array.0, r.kind))
        .collect();
    pairs.sort();
    eprintln!("{} races: {}", pairs.len(), pairs.join(" "));
}

/// One measurement in this process: `which` is `named`, `sdv-sync0` or `named-sync0`.
fn measure(which: &str, shape: SingeShape) {
    let shape = SingeShape {
        named: which == "named",
        ..shape
    };
    let text = singe_kernel(&shape);
    let t = Instant::now();
    let unit = lower_text(std::path::Path::new("singe.cu"), &text, &FrontOptions::default()).expect("lowers");
    let lower = t.elapsed();
    let k = &unit.kernels[0];
    let t = Instant::now();
    let profile = std::env::var_os("SINGE_PROFILE").is_some();
    let report = match which {
        "sdv-sync0" if profile => sdv_profiled(k),
        "sdv-sync0" => sdv::check(k, &sdv::SdvOptions::default()),
        _ => named::check(k, &named::NamedOptions::default()),
    };
    let check = t.elapsed();
    if profile {
        print_races(&report);
    }
    println!(
        "{which:<12} {} lines, lowering {lower:.2?}, check {check:.2?}, clean = {}, inconclusive = {}, {} queries, peak {:.0} MB",
        text.lines().count(),
        report.is_clean(),
        !report.inconclusive.is_empty(),
        report.queries,
        peak_rss_mb().unwrap_or(0.0)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let nums: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let shape = match nums[..] {
        [warps, phases, lines, slots] => SingeShape {
            warps,
            phases,
            lines,
            slots,
            named: true,
        },
        _ => SingeShape::default_named(),
    };
    if let Some(which) = args.iter().find(|a| a.parse::<u32>().is_err()) {
        measure(which, shape);
        return;
    }
    println!(
        "shape: {} warps, {} phases, {} lines and {} slots per warp and phase",
        shape.warps, shape.phases, shape.lines, shape.slots
    );
    let me = std::env::current_exe().expect("own path");
    for which in ["named", "sdv-sync0", "named-sync0"] {
        let mut cmd = Command::new(&me);
        cmd.arg(which);
        for n in [shape.warps, shape.phases, shape.lines, shape.slots] {
            cmd.arg(n.to_string());
        }
        let status = cmd.status().expect("runs");
        assert!(status.success(), "{which} failed");
    }
}
