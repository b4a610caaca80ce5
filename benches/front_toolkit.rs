//! Benchmark: the front end with the real CUDA toolkit (the tests' toolkit, `.ci/cuda-venv.sh`):
//! Clang 19's device pass over the toolkit's headers, the dump and the lowering.
//!
//! Run: `cargo bench --bench front_toolkit`. Prints the median of 3 loads per corpus file
//! (warm: the toolkit view and the precompiled prelude exist), the median and maximum over the
//! corpus, the same for the files that include CUB's block headers, and cold runs: `autosync
//! check` on a trivial kernel and on a CUB file with an empty cache directory (the first run
//! on a machine: probe, toolkit view, prelude PCH).
//! `AUTOSYNC_BENCH_FILTER=toolkit/cub_` restricts the per-file runs to kernels whose manifest
//! path starts with it. Kernels the manifest reads with the shim only are skipped.

use autosync::front;
use autosync_devtools::{manifest, toolkit};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Wall time of `autosync check` on `file` with an empty cache directory.
fn cold(tk: &toolkit::TestToolkit, file: &str) -> Duration {
    let cache = tempfile::tempdir().expect("temp dir");
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_autosync"))
        .args(["check", "--cuda-path"])
        .arg(&tk.cuda)
        .arg(file)
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("runs autosync");
    let d = t.elapsed();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{file}: {:?}", out);
    d
}

fn main() {
    let Some(tk) = toolkit::find() else {
        eprintln!("front_toolkit: no toolkit for the benchmarks (run .ci/cuda-venv.sh)");
        return;
    };
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let (mut all, mut cub) = (Vec::new(), Vec::new());
    // Kernels read with the shim only are not read with the toolkit (the manifest says why).
    let filter = std::env::var("AUTOSYNC_BENCH_FILTER").unwrap_or_default();
    for e in m
        .kernels
        .iter()
        .filter(|e| !e.shim_only() && e.path.starts_with(&filter))
    {
        let path = e.file(Path::new("corpus"));
        let opts = e.front_options_in(Some(&tk));
        let runs: Vec<Duration> = (0..3)
            .map(|_| {
                let t = Instant::now();
                front::load(&path, &opts).unwrap_or_else(|err| panic!("{}: {err:?}", e.path));
                t.elapsed()
            })
            .collect();
        let d = median(runs);
        println!("{:>8.1} ms  {}", ms(d), e.path);
        all.push(d);
        if e.path.starts_with("toolkit/cub_") {
            cub.push(d);
        }
    }
    let summary = |what: &str, v: &[Duration]| {
        if !v.is_empty() {
            let max = v.iter().max().copied().unwrap_or_default();
            println!(
                "{what}: {} files, median {:.0} ms, max {:.0} ms",
                v.len(),
                ms(median(v.to_vec())),
                ms(max)
            );
        }
    };
    summary("corpus with the toolkit", &all);
    summary("CUB block-header files", &cub);
    let trivial = "corpus/micro/two_races_two_barriers.cu";
    println!("cold cache, {trivial}: {:.0} ms", ms(cold(&tk, trivial)));
    let cub_file = "corpus/toolkit/cub_block_scan.cu";
    println!("cold cache, {cub_file}: {:.0} ms", ms(cold(&tk, cub_file)));
}
