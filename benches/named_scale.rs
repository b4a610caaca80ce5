//! Benchmark: the named-barrier checker on a generated warp-specialized pipeline of 1,024
//! threads with at least 10^4 dynamic barriers and 10^7 emulated shared-memory accesses.
//!
//! Run: `cargo bench --bench named_scale [-- WARPS STAGES ITERATIONS ACCESSES]`. Prints the shape,
//! lowering and checking time, the verdict, and the process's peak resident memory.

use autosync::front::{lower_text, FrontOptions};
use autosync_devtools::workload::{pipeline_kernel, PipelineShape};
use autosync_oracle::named;
use std::time::Instant;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let get = |i: usize, d: u32| args.get(i).copied().unwrap_or(d);
    let shape = PipelineShape {
        warps: get(0, 32),
        stages: get(1, 4),
        iterations: get(2, 400),
        accesses: get(3, 17),
        drop_release: false,
    };
    let text = pipeline_kernel(&shape);
    let opts = FrontOptions {
        params: [("iters".to_string(), shape.iterations as i64)].into(),
        ..Default::default()
    };
    let t = Instant::now();
    let unit = lower_text(std::path::Path::new("generated_pipeline.cu"), &text, &opts).expect("lowers");
    let lower = t.elapsed();
    let t = Instant::now();
    let report = named::check(&unit.kernels[0], &named::NamedOptions::default());
    let check = t.elapsed();
    println!(
        "shape: {} threads, {} stages, {} iterations, {} accesses/stage -> {} dynamic barriers, {} emulated memory accesses",
        shape.threads(),
        shape.stages,
        shape.iterations,
        shape.accesses,
        shape.dynamic_barriers(),
        shape.dynamic_accesses()
    );
    println!(
        "lowering {lower:.2?}, named check {check:.2?}, verdict clean = {}",
        report.is_clean()
    );
    if let Some(mb) = peak_rss_mb() {
        println!("peak resident memory {mb:.0} MB");
    }
    assert!(
        report.is_clean(),
        "generated pipeline should verify: {:?}",
        report.sync_defects.first()
    );
}
