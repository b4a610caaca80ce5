//! Benchmark: the named checker on a generated mbarrier ring (issue 26's scale target: 4
//! stages, 1 producer warp, 2 consumer warpgroups, 64 iterations; checked in at most 2 s),
//! correct and with the consumers' release stripped (a deadlock the checker must find); then
//! `fix` on the stripped ring, which must write the release back (the ring's own text), and the
//! share of that fix spent in its second verification (the reference executor's replay).
//!
//! Run: `cargo bench --bench mbarrier_scale [-- STAGES GROUPS ITERATIONS]`.

use autosync::front::{lower_text, FrontOptions};
use autosync::jobs::fix::{fix_text, FixOptions};
use autosync::synth::mbarrier::replay;
use autosync_devtools::workload::{ring_kernel, RingShape};
use autosync_oracle::named;
use std::time::Instant;

fn run(shape: RingShape) {
    let text = ring_kernel(&shape);
    let opts = FrontOptions {
        params: [("iters".to_string(), shape.iterations as i64)].into(),
        ..Default::default()
    };
    let t = Instant::now();
    let unit = lower_text(std::path::Path::new("generated_ring.cu"), &text, &opts).expect("lowers");
    let lower = t.elapsed();
    // Median of five: the check is short and the machine is shared.
    let mut times = vec![];
    let mut report = None;
    for _ in 0..5 {
        let t = Instant::now();
        report = Some(named::check(&unit.kernels[0], &named::NamedOptions::default()));
        times.push(t.elapsed());
    }
    times.sort();
    let report = report.unwrap();
    println!(
        "{} threads, {} stages, {} iterations, release {}: lowering {lower:.2?}, check median {:.2?} (min {:.2?}, max {:.2?}), clean = {}, defects {:?}",
        shape.threads(),
        shape.stages,
        shape.iterations,
        if shape.drop_release { "dropped" } else { "kept" },
        times[2],
        times[0],
        times[4],
        report.is_clean(),
        report.sync_defects.iter().map(|d| d.kind.clone()).collect::<Vec<_>>()
    );
    assert_eq!(report.is_clean(), !shape.drop_release, "{report:?}");
}

/// `fix` on the ring without its release: the time of the whole job (named synthesis, mbarrier
/// synthesis with each candidate lowered again and checked, the patched text verified).
fn fix(shape: RingShape, opts: &FrontOptions) {
    let stripped = ring_kernel(&RingShape {
        drop_release: true,
        ..shape
    });
    let t = Instant::now();
    let r = fix_text(
        std::path::Path::new("generated_ring.cu"),
        &stripped,
        opts,
        &FixOptions::default(),
    )
    .expect("fixes");
    let time = t.elapsed();
    let kf = &r.kernels[0];
    println!(
        "fix with the release stripped: {time:.2?} ({} rounds, {} checks), {}",
        kf.stats.rounds, kf.stats.oracle_calls, kf.status
    );
    let kept = ring_kernel(&RingShape {
        drop_release: false,
        ..shape
    });
    assert_eq!(r.patched.as_deref(), Some(kept.as_str()), "{}", r.diff);
    let unit = lower_text(std::path::Path::new("generated_ring.cu"), &kept, opts).expect("lowers");
    let t = Instant::now();
    let seen = replay::replay(&unit.kernels[0], &Default::default());
    println!(
        "of which the executor's replay of the fixed ring: {:.2?}, {seen:?}",
        t.elapsed()
    );
}

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let get = |i: usize, d: u32| args.get(i).copied().unwrap_or(d);
    let shape = RingShape {
        stages: get(0, 4),
        consumer_groups: get(1, 2),
        iterations: get(2, 64),
        drop_release: false,
    };
    run(shape);
    run(RingShape {
        drop_release: true,
        ..shape
    });
    let opts = FrontOptions {
        params: [("iters".to_string(), shape.iterations as i64)].into(),
        ..Default::default()
    };
    fix(shape, &opts);
}
