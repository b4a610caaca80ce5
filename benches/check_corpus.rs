//! Benchmark: front end and `check` over the whole corpus, per kernel.
//!
//! Run: `cargo bench --bench check_corpus`. Prints, per kernel, the lowering time and the check
//! time (median of 3 runs), then the median and maximum over the corpus, the kernels whose check
//! took over 1 s and those that ended inconclusive.
//! `AUTOSYNC_BENCH_FILTER=stride/` restricts the run to kernels whose manifest path starts with it
//! (`stride/`: the grid-, block- and warp-stride loops).

use autosync::front;
use autosync::jobs::check::{check_kernel, OracleChoice};
use autosync_devtools::manifest;
use std::path::Path;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let mut lower_times = Vec::new();
    let mut check_times = Vec::new();
    let mut inconclusive = Vec::new();
    let filter = std::env::var("AUTOSYNC_BENCH_FILTER").unwrap_or_default();
    for e in m.kernels.iter().filter(|e| e.path.starts_with(&filter)) {
        let path = e.file(Path::new("corpus"));
        let opts = e.front_options();
        let mut lt = Vec::new();
        let mut unit = None;
        for _ in 0..3 {
            let t = Instant::now();
            unit = Some(front::load(&path, &opts).expect("lowers"));
            lt.push(t.elapsed());
        }
        let k = unit.unwrap().kernels.remove(0);
        let mut ct = Vec::new();
        let mut checker = "";
        let mut undecided = false;
        for _ in 0..3 {
            let t = Instant::now();
            let (r, c) = check_kernel(&k, OracleChoice::Auto, 2000);
            checker = c;
            undecided = !r.inconclusive.is_empty();
            ct.push(t.elapsed());
        }
        if undecided {
            inconclusive.push(e.path.clone());
        }
        let (l, c) = (median(lt), median(ct));
        println!("{:<40} {:>6} lower {:>9.2?} check {:>9.2?}", e.path, checker, l, c);
        lower_times.push((l, e.path.clone()));
        check_times.push((c, e.path.clone()));
    }
    let summarize = |name: &str, mut v: Vec<(Duration, String)>| {
        v.sort();
        let (med, max) = (&v[v.len() / 2], &v[v.len() - 1]);
        println!(
            "{name}: median {:.2?}, max {:.2?} ({}) over {} kernels",
            med.0,
            max.0,
            max.1,
            v.len()
        );
        let slow: Vec<&str> = v
            .iter()
            .filter(|(d, _)| *d > Duration::from_secs(1))
            .map(|(_, p)| p.as_str())
            .collect();
        println!(
            "{name} over 1 s: {}",
            if slow.is_empty() {
                "none".into()
            } else {
                slow.join(", ")
            }
        );
    };
    summarize("lowering", lower_times);
    summarize("check", check_times);
    println!(
        "inconclusive: {}",
        if inconclusive.is_empty() {
            "none".into()
        } else {
            inconclusive.join(", ")
        }
    );
}
