//! Benchmark: the front end (Clang's device pass and the lowering) per corpus file, and on
//! large C++ inputs (a CudaDMA-style class-template header with standard headers included).
//!
//! Run: `cargo bench --bench front_end [FILE...]`. Prints, per corpus file, the median of 3
//! loads; then the median and maximum over the corpus. Each large input (the files given, or by
//! default every corpus file that includes the CudaDMA-style `dma_lib.h`) is loaded in a child
//! process, so that its wall time and peak memory (the child's own and Clang's, from
//! `getrusage`) are measured alone.

use autosync::front;
use autosync_devtools::manifest;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Peak resident set size in MB of this process and of the largest child it waited for.
fn peak_mb() -> (f64, f64) {
    let get = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut u) };
        u.ru_maxrss as f64 / 1024.0
    };
    (get(libc::RUSAGE_SELF), get(libc::RUSAGE_CHILDREN))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    // Child mode: load one file, report time and memory on stdout.
    if let Some(pos) = std::env::args().position(|a| a == "--one") {
        let file = std::env::args().nth(pos + 1).expect("--one FILE");
        let include = std::env::args().nth(pos + 2);
        let opts = front::FrontOptions {
            include_dirs: include.into_iter().map(PathBuf::from).collect(),
            ..Default::default()
        };
        let t = Instant::now();
        let unit = front::load(Path::new(&file), &opts);
        let dt = t.elapsed();
        let (me, clang) = peak_mb();
        match unit {
            Ok(u) => println!("{:.3} {:.1} {:.1} {}", dt.as_secs_f64(), me, clang, u.kernels.len()),
            Err(e) => println!("error {}", e.message),
        }
        return;
    }
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let mut times = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut large: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    for e in &m.kernels {
        if !seen.insert(e.path.clone()) {
            continue;
        }
        let path = e.file(Path::new("corpus"));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.contains("dma_lib.h") {
            large.push((
                path.clone(),
                e.include_dirs.first().map(|d| Path::new("corpus").join(d)),
            ));
        }
        let opts = e.front_options();
        let mut v = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            front::load(&path, &opts).expect("lowers");
            v.push(t.elapsed());
        }
        let md = median(v);
        println!("{:<44} {:>9.2?}", e.path, md);
        times.push((md, e.path.clone()));
    }
    times.sort();
    println!(
        "front end: median {:.2?}, max {:.2?} ({}) over {} corpus files",
        times[times.len() / 2].0,
        times[times.len() - 1].0,
        times[times.len() - 1].1,
        times.len()
    );
    if !args.is_empty() {
        large = args.iter().map(|a| (PathBuf::from(a), None)).collect();
    }
    let exe = std::env::current_exe().expect("own path");
    for (file, inc) in large {
        let mut runs = Vec::new();
        for _ in 0..3 {
            let mut c = Command::new(&exe);
            c.arg("--one").arg(&file);
            if let Some(i) = &inc {
                c.arg(i);
            }
            let out = c.output().expect("child runs");
            runs.push(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        runs.sort();
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        println!(
            "{} ({} bytes): median run [seconds, MB autosync, MB clang, kernels] = {}",
            file.display(),
            size,
            runs[1]
        );
    }
}
