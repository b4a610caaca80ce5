//! Differential tests on randomly generated kernels (`autosync_devtools::gen`), lowered from CUDA text:
//! - the SDV oracle reports every race the brute-force executor finds (zero misses);
//! - `fix` output, lowered again, is race-free under the executor for several values of `n`;
//! - the SDV and named-barrier checkers agree on concrete `__syncthreads` kernels.
//!
//! The three generated sweeps run a fraction of their full counts by default (the merge gate),
//! all of them with `AUTOSYNC_FULL_SWEEPS=1`, and `AUTOSYNC_GEN_CASES=F` times them for a
//! longer local search (`common::sweep`); a failing seed is printed with its kernel text. Cases
//! run in parallel on rayon's pool (almost all their time is Z3 solving, which is per thread).

use crate::common::sweep::cases;
use autosync::front::{self, FrontOptions};
use autosync::jobs::fix::{fix_file, FixOptions};
use autosync_devtools::gen::{generate, GenConfig, GenKernel};
use autosync_oracle::exec::{execute, ExecConfig, ExecError, ExecReport};
use autosync_oracle::ir::{ArrayId, Kernel, Label};
use autosync_oracle::report::{RaceScope, Report};
use autosync_oracle::{named, sdv};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

type Pair = (Label, Label, ArrayId);

/// Full case counts of the three generated tests (`common::sweep` scales them): 2,200 in all,
/// about 62 s of wall clock on 2 idle cores (nearly all of it Z3).
/// `AUTOSYNC_GEN_CASES=10` runs 22,000 for a longer local search.
const SDV_CASES: u64 = 1500;
/// See [`SDV_CASES`].
const FIX_CASES: u64 = 200;
/// See [`SDV_CASES`].
const AGREE_CASES: u64 = 500;

/// Lowers a generated kernel; every generated kernel must lower.
fn lower(g: &GenKernel, text: &str) -> Kernel {
    let path = format!("gen_{}.cu", g.seed);
    match front::lower_text(Path::new(&path), text, &FrontOptions::default()) {
        Ok(mut u) if u.kernels.len() == 1 => u.kernels.remove(0),
        Ok(u) => panic!("seed {}: {} kernels lowered\n{text}", g.seed, u.kernels.len()),
        Err(e) => panic!("seed {}: does not lower: {}\n{text}", g.seed, e.message),
    }
}

/// The intra-block pairs a report names, its benign races (warnings) included.
fn pairs(r: &Report) -> BTreeSet<Pair> {
    pairs_of(r.races.iter().chain(&r.benign))
}

/// The intra-block pairs a report calls harmful.
fn harmful_pairs(r: &Report) -> BTreeSet<Pair> {
    pairs_of(r.races.iter())
}

fn pairs_of<'r>(races: impl Iterator<Item = &'r autosync_oracle::report::Race>) -> BTreeSet<Pair> {
    races
        .filter(|x| x.scope == RaceScope::IntraBlock)
        .map(|x| {
            let (a, b) = (x.first.label, x.second.label);
            (a.min(b), a.max(b), x.array)
        })
        .collect()
}

/// The values of `n` a kernel runs with (only 0 when it never reads `n`).
fn n_values(g: &GenKernel) -> &'static [i64] {
    if g.uses_n() {
        &[0, 1, 2, 3, 5]
    } else {
        &[0]
    }
}

/// What the executor saw over every `n` and memory seed.
struct Executed {
    /// Every intra-block race.
    races: BTreeSet<Pair>,
    /// The races seen with a load, an atomic or stores of different values.
    harmful: BTreeSet<Pair>,
    reports: Vec<ExecReport>,
}

/// Runs the executor for every `n` and memory seed; the union of its races.
fn executed_races(g: &GenKernel, k: &Kernel, text: &str) -> Executed {
    let mut seen = BTreeSet::new();
    let mut harmful = BTreeSet::new();
    let mut reports = Vec::new();
    for &n in n_values(g) {
        for seed in 0..2 {
            let mut cfg = ExecConfig::from_launch(&k.launch).expect("generated kernels have a blockDim");
            cfg.params.insert("n".into(), n);
            cfg.seed = seed;
            let rep = match execute(k, &cfg) {
                Ok(r) => r,
                Err(ExecError::DivByZero(_)) => continue,
                Err(e) => panic!("seed {}: executor failed with n={n}: {e}\n{text}", g.seed),
            };
            let pair = |r: &autosync_oracle::exec::ExecRace| (r.first.min(r.second), r.first.max(r.second), r.array);
            seen.extend(rep.races.iter().filter(|r| !r.inter_block).map(pair));
            harmful.extend(rep.races.difference(&rep.benign).filter(|r| !r.inter_block).map(pair));
            reports.push(rep);
        }
    }
    Executed {
        races: seen,
        harmful,
        reports,
    }
}

/// Per-case counts of the SDV-vs-executor test, summed over cases.
#[derive(Default)]
struct SdvStats {
    racy: usize,
    races: usize,
    queries: u64,
    exec_time: Duration,
    sdv_time: Duration,
}

impl SdvStats {
    fn add(self, o: SdvStats) -> SdvStats {
        SdvStats {
            racy: self.racy + o.racy,
            races: self.races + o.races,
            queries: self.queries + o.queries,
            exec_time: self.exec_time + o.exec_time,
            sdv_time: self.sdv_time + o.sdv_time,
        }
    }
}

/// Checks one generated kernel: the SDV oracle reports every race the executor sees.
fn sdv_case(seed: u64, cfg: &GenConfig) -> SdvStats {
    let g = generate(seed, cfg);
    let text = g.to_cuda();
    let k = lower(&g, &text);
    let t0 = Instant::now();
    let Executed {
        races: seen,
        harmful,
        reports,
    } = executed_races(&g, &k, &text);
    let exec_time = t0.elapsed();
    // Barriers are generated at block-uniform positions only.
    for r in &reports {
        assert!(
            r.divergent_barriers.is_empty(),
            "seed {seed}: executor saw divergence\n{text}"
        );
    }
    let t0 = Instant::now();
    let rep = sdv::check(&k, &sdv::SdvOptions::default());
    let sdv_time = t0.elapsed();
    let found = pairs(&rep);
    let missed: Vec<_> = seen.difference(&found).collect();
    assert!(
        missed.is_empty(),
        "seed {seed}: executor races {missed:?} not reported by the SDV oracle (found {found:?})\n{}\n{text}",
        autosync_oracle::print::kernel(&k)
    );
    let reported_harmful = harmful_pairs(&rep);
    let called_benign: Vec<_> = harmful.difference(&reported_harmful).collect();
    assert!(
        called_benign.is_empty(),
        "seed {seed}: executor races {called_benign:?} with different stored values reported as benign\n{text}"
    );
    SdvStats {
        racy: usize::from(!seen.is_empty()),
        races: seen.len(),
        queries: rep.queries,
        exec_time,
        sdv_time,
    }
}

#[test]
fn random_kernels_sdv_never_misses_an_executor_race() {
    let cfg = GenConfig::default();
    let cases = cases(SDV_CASES);
    let t = (0..cases)
        .into_par_iter()
        .map(|seed| sdv_case(seed, &cfg))
        .reduce(SdvStats::default, SdvStats::add);
    // The generator must produce racy kernels, or the comparison shows nothing.
    assert!(t.racy as u64 > cases / 3, "only {} of {cases} kernels race", t.racy);
    eprintln!(
        "{cases} kernels, {} racy, {} executor races, none missed; {} SDV queries; executor {:?}, SDV {:?} (summed over threads)",
        t.racy, t.races, t.queries, t.exec_time, t.sdv_time
    );
}

fn fix_opts() -> FixOptions {
    FixOptions::default()
}

/// The outcome of `fix` on one generated kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FixOutcome {
    Fixed,
    Clean,
    Unfixable,
    Inconclusive,
}

/// Fixes one generated kernel; a fixed or clean result must be race-free under the executor.
fn fix_case(seed: u64, cfg: &GenConfig, dir: &Path) -> FixOutcome {
    let g = generate(seed, cfg);
    let text = g.to_cuda();
    let path = dir.join(format!("gen_{seed}.cu"));
    std::fs::write(&path, &text).unwrap();
    let res = match fix_file(&path, &FrontOptions::default(), &fix_opts()) {
        Ok(r) => r,
        Err(e) => panic!("seed {seed}: fix failed: {e:?}\n{text}"),
    };
    let status = res.kernels[0].status;
    let outcome = match status {
        "fixed" => FixOutcome::Fixed,
        "clean" => FixOutcome::Clean,
        "unfixable" => {
            if std::env::var("AUTOSYNC_GEN_VERBOSE").is_ok() {
                eprintln!("seed {seed}: {:?}", res.kernels[0].reasons);
            }
            return FixOutcome::Unfixable;
        }
        _ => return FixOutcome::Inconclusive,
    };
    let out = res.patched.clone().unwrap_or_else(|| text.clone());
    assert_eq!(
        status == "fixed",
        out != text,
        "seed {seed}: status {status} but text changed={}",
        out != text
    );
    let k = lower(&g, &out);
    // Benign races (every thread stores the same value) are warnings `fix` leaves alone.
    let seen = executed_races(&g, &k, &out).harmful;
    assert!(
        seen.is_empty(),
        "seed {seed}: `fix` output ({status}) still races: {seen:?}\n{out}"
    );
    outcome
}

#[test]
fn random_kernels_fix_output_is_race_free_under_the_executor() {
    let cfg = GenConfig::fixable();
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(FIX_CASES);
    let outcomes: Vec<FixOutcome> = (0..cases)
        .into_par_iter()
        .map(|seed| fix_case(seed, &cfg, dir.path()))
        .collect();
    let count = |o: FixOutcome| outcomes.iter().filter(|x| **x == o).count();
    let fixed = count(FixOutcome::Fixed);
    assert!(fixed as u64 > cases / 4, "only {fixed} of {cases} fixed");
    eprintln!(
        "{cases} kernels: {fixed} fixed, {} clean, {} unfixable, {} inconclusive",
        count(FixOutcome::Clean),
        count(FixOutcome::Unfixable),
        count(FixOutcome::Inconclusive)
    );
}

/// Compares the SDV and named checkers with the executor on one concrete kernel: `None` when a
/// checker was inconclusive or assumed a race, else `Some` once both equal the executor's pairs.
fn agree_case(seed: u64, cfg: &GenConfig) -> Option<()> {
    let g = generate(seed, cfg);
    let text = g.to_cuda();
    let k = lower(&g, &text);
    let n = named::check(
        &k,
        &named::NamedOptions {
            timeout_ms: 2000,
            ..Default::default()
        },
    );
    let s = sdv::check(
        &k,
        &sdv::SdvOptions {
            check_inter_block: false,
            ..Default::default()
        },
    );
    if !n.inconclusive.is_empty() || !s.inconclusive.is_empty() {
        return None;
    }
    if s.races.iter().chain(&n.races).any(|r| r.assumed) {
        return None;
    }
    assert!(
        s.divergences.is_empty() && n.divergences.is_empty() && n.sync_defects.is_empty(),
        "seed {seed}: divergence or sync defect reported for a kernel without either\n{text}"
    );
    // Concrete kernels without data-dependent branches: the executor's race set is exact.
    let exact = executed_races(&g, &k, &text).races;
    let (sp, np) = (pairs(&s), pairs(&n));
    assert!(
        exact.is_subset(&np),
        "seed {seed}: named checker misses {:?}\n{text}",
        exact.difference(&np)
    );
    assert!(
        exact.is_subset(&sp),
        "seed {seed}: SDV checker misses {:?}\n{text}",
        exact.difference(&sp)
    );
    // Both checkers are exact on these kernels: the SDV checker's barrier intervals unroll
    // loops with constant trip counts (their uniform branches fold per iteration) and pin the
    // ends of a path to the first or last iteration of a loop it enters or leaves.
    assert_eq!(
        sp,
        np,
        "seed {seed}: SDV and named checkers disagree (SDV only: {:?}, named only: {:?})\n{text}",
        sp.difference(&np).collect::<Vec<_>>(),
        np.difference(&sp).collect::<Vec<_>>()
    );
    if std::env::var("AUTOSYNC_GEN_VERBOSE").is_ok() && sp != exact {
        eprintln!(
            "seed {seed}: both checkers report {:?} beyond the executor",
            sp.difference(&exact).collect::<Vec<_>>()
        );
    }
    Some(())
}

#[test]
fn random_concrete_kernels_sdv_and_named_checkers_agree() {
    let cfg = GenConfig::concrete();
    let cases = cases(AGREE_CASES);
    let compared = (0..cases)
        .into_par_iter()
        .filter_map(|seed| agree_case(seed, &cfg))
        .count();
    assert!(compared as u64 > cases * 9 / 10, "only {compared} of {cases} compared");
    eprintln!("{cases} concrete kernels, {compared} compared, all with equal race sets");
}

/// Reading `sh[64 * (i - 2) + (t + 1) % 64]` before the barrier and writing `sh[64 * i + t]`
/// after it: only iterations two apart touch the same element. With a barrier on every path of
/// the loop body, the accesses can only meet in consecutive iterations, so there is no race (the
/// SDV query used to require only that the iterations differ and reported one). With the barrier
/// in every other iteration only, the write of iteration i and the read of iteration i + 2 do
/// meet: the race must still be reported.
#[test]
fn sdv_precision_across_back_edges() {
    for (barrier, racy) in [("__syncthreads();", false), ("if (i % 2 == 0) __syncthreads();", true)] {
        let text = format!(
            "//--blockDim=64 --gridDim=1\n\
             __global__ void k(int *out) {{\n\
             \x20   __shared__ int sh[512];\n\
             \x20   int x = 0;\n\
             \x20   for (int i = 0; i < 8; i++) {{\n\
             \x20       if (i >= 2)\n\
             \x20           x += sh[64 * (i - 2) + (threadIdx.x + 1) % 64];\n\
             \x20       {barrier}\n\
             \x20       sh[64 * i + threadIdx.x] = x;\n\
             \x20   }}\n\
             \x20   out[threadIdx.x] = x;\n\
             }}\n"
        );
        let k = match front::lower_text(Path::new("back_edge.cu"), &text, &FrontOptions::default()) {
            Ok(mut u) => u.kernels.remove(0),
            Err(e) => panic!("does not lower: {}\n{text}", e.message),
        };
        let exec = execute(&k, &ExecConfig::from_launch(&k.launch).unwrap()).unwrap();
        let exact: BTreeSet<Pair> = exec
            .races
            .iter()
            .map(|r| (r.first.min(r.second), r.first.max(r.second), r.array))
            .collect();
        assert_eq!(!exact.is_empty(), racy, "executor on\n{text}");
        let s = pairs(&sdv::check(&k, &sdv::SdvOptions::default()));
        assert_eq!(s, exact, "SDV on\n{text}");
        let n = pairs(&named::check(&k, &named::NamedOptions::default()));
        assert_eq!(n, exact, "named on\n{text}");
    }
}

/// Races the executor finds on `k` with `n` set to each of `ns`.
fn executed_with_n(k: &Kernel, ns: &[i64]) -> BTreeSet<Pair> {
    let mut out = BTreeSet::new();
    for &n in ns {
        let mut cfg = ExecConfig::from_launch(&k.launch).unwrap();
        cfg.params.insert("n".into(), n);
        let exec = execute(k, &cfg).unwrap();
        out.extend(
            exec.races
                .iter()
                .map(|r| (r.first.min(r.second), r.first.max(r.second), r.array)),
        );
    }
    out
}

/// Barrier-free paths that enter a loop reach only its first iteration, and paths that leave it
/// by its test start in its last one. A write before the loop and a read in the `else` of
/// `if (i % 2 == 0) __syncthreads();` cannot meet (iteration 0 takes the barrier), nor can a
/// write under `if (i + 1 < n)` meet a read after the loop (the next iteration's barrier comes
/// first). The trip count `n` is unknown to the checkers, so no unrolling helps; with it known
/// (`--param n=4`) the loop is unrolled and the same holds. Flipping each condition makes the
/// race real, and it must still be reported.
#[test]
fn sdv_precision_at_loop_entry_and_exit() {
    let cases = [
        ("i % 2 == 0", "i + 1 < n", false),
        ("i % 2 == 1", "i + 1 < n", true),
        ("i % 2 == 0", "i < n", true),
    ];
    for (barrier_cond, write_cond, racy) in cases {
        let text = format!(
            "//--blockDim=32 --gridDim=1\n\
             __global__ void k(int *out, int n) {{\n\
             \x20   __shared__ int sh[64];\n\
             \x20   __shared__ int tail[32];\n\
             \x20   int t = threadIdx.x;\n\
             \x20   int x = 0;\n\
             \x20   sh[t] = t;\n\
             \x20   for (int i = 0; i < n; i++) {{\n\
             \x20       if ({barrier_cond}) {{\n\
             \x20           __syncthreads();\n\
             \x20       }} else {{\n\
             \x20           x += sh[(t + 1) % 32];\n\
             \x20       }}\n\
             \x20       __syncthreads();\n\
             \x20       if ({write_cond})\n\
             \x20           tail[t] = x + i;\n\
             \x20   }}\n\
             \x20   out[t] = x + tail[(t + 1) % 32];\n\
             }}\n"
        );
        let mut opts = FrontOptions::default();
        let symbolic = match front::lower_text(Path::new("entry_exit.cu"), &text, &opts) {
            Ok(mut u) => u.kernels.remove(0),
            Err(e) => panic!("does not lower: {}\n{text}", e.message),
        };
        let exact = executed_with_n(&symbolic, &[1, 2, 3, 4, 5]);
        assert_eq!(!exact.is_empty(), racy, "executor on\n{text}");
        let s = pairs(&sdv::check(&symbolic, &sdv::SdvOptions::default()));
        assert_eq!(s, exact, "SDV with n unknown on\n{text}");
        opts.params.insert("n".into(), 4);
        let concrete = match front::lower_text(Path::new("entry_exit.cu"), &text, &opts) {
            Ok(mut u) => u.kernels.remove(0),
            Err(e) => panic!("does not lower: {}\n{text}", e.message),
        };
        let exact4 = executed_with_n(&concrete, &[4]);
        let s4 = pairs(&sdv::check(&concrete, &sdv::SdvOptions::default()));
        assert_eq!(s4, exact4, "SDV with n = 4 on\n{text}");
    }
}

/// Induction variables leave a loop that only its test ends with their closed form at the trip
/// count: after `for (a = 16; a > 0; a >>= 1) s <<= 1;` s is 32, so `sh[s + t]` (t < 32) and
/// `sh[t ^ 1]` cannot meet. With the start `n` unknown, s can be 1 (n = 0) and the race is
/// real: it must be reported.
#[test]
fn sdv_values_after_counted_loops() {
    for (start, racy) in [("16", false), ("n", true)] {
        let text = format!(
            "//--blockDim=32 --gridDim=1\n\
             __global__ void k(int *out, int n) {{\n\
             \x20   __shared__ int sh[128];\n\
             \x20   int t = threadIdx.x;\n\
             \x20   int s = 1;\n\
             \x20   for (int a = {start}; a > 0; a >>= 1)\n\
             \x20       s <<= 1;\n\
             \x20   sh[s + t] = t;\n\
             \x20   out[t] = sh[t ^ 1];\n\
             }}\n"
        );
        let k = match front::lower_text(Path::new("exit_values.cu"), &text, &FrontOptions::default()) {
            Ok(mut u) => u.kernels.remove(0),
            Err(e) => panic!("does not lower: {}\n{text}", e.message),
        };
        let exact = executed_with_n(&k, &[0, 1, 16]);
        assert_eq!(!exact.is_empty(), racy, "executor on\n{text}");
        let s = pairs(&sdv::check(&k, &sdv::SdvOptions::default()));
        assert_eq!(s, exact, "SDV on\n{text}");
    }
}

/// Replays one seed with every checker and prints the results:
/// `AUTOSYNC_GEN_SEED=65 AUTOSYNC_GEN_CONCRETE=1 cargo test --release --test it random_differential::replay -- --ignored --nocapture`.
#[test]
#[ignore]
fn replay() {
    let seed: u64 = std::env::var("AUTOSYNC_GEN_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let cfg = if std::env::var("AUTOSYNC_GEN_CONCRETE").is_ok() {
        GenConfig::concrete()
    } else {
        GenConfig::default()
    };
    let g = generate(seed, &cfg);
    let text = g.to_cuda();
    let k = lower(&g, &text);
    println!("{text}\n{}", autosync_oracle::print::kernel(&k));
    let seen = executed_races(&g, &k, &text);
    println!("executor: {:?} (harmful: {:?})", seen.races, seen.harmful);
    println!("sdv:      {:?}", pairs(&sdv::check(&k, &sdv::SdvOptions::default())));
    println!(
        "named:    {:?}",
        pairs(&named::check(&k, &named::NamedOptions::default()))
    );
}
