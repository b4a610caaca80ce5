//! The warp-scheduling executor (`autosync_oracle::exec::execute_warps`) against the named
//! checker on async pipelines: the corpus kernels of `corpus/pipeline/`, then generated rings
//! (`autosync_devtools::pipelines`). Every race and defect the executor observes under any
//! schedule must be reported by the checker (zero misses); the checker's findings the
//! executor did not observe are counted (printed), not failures. The generated rings run a
//! fraction of their full count by default (the merge gate), all of it with
//! `AUTOSYNC_FULL_SWEEPS=1` (`common::sweep`).

use crate::common::sweep::cases;
use autosync::front::{self, FrontOptions};
use autosync_devtools::manifest::{self, Entry};
use autosync_devtools::pipelines::{generate_pipeline, Producer};
use autosync_oracle::exec::{execute_warps, ExecConfig, Schedule, WarpReport};
use autosync_oracle::ir::{ArrayId, Kernel, Label};
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::Report;
use std::collections::BTreeSet;
use std::path::Path;

type Pair = (Label, Label, ArrayId);

fn pipeline_entries() -> Vec<Entry> {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    m.kernels.into_iter().filter(|e| e.group == "pipeline").collect()
}

/// The executor under round-robin, reverse and six pseudo-random schedules.
fn execute(k: &Kernel) -> WarpReport {
    let cfg = ExecConfig::from_launch(&k.launch).expect("pipeline kernels have a blockDim");
    execute_warps(k, &cfg, &Schedule::standard(6)).unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

/// The racing pairs a checker report names (benign ones included).
fn checker_pairs(r: &Report) -> BTreeSet<Pair> {
    r.races
        .iter()
        .chain(&r.benign)
        .map(|x| {
            let (a, b) = (x.first.label, x.second.label);
            (a.min(b), a.max(b), x.array)
        })
        .collect()
}

/// What the executor saw that the checker does not report. A checker report with a
/// synchronization defect stops before races (happens-before is only exact for well-synchronized
/// kernels), so then only the verdict is compared.
fn misses(exec: &WarpReport, checker: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if !exec.is_clean() && checker.is_clean() {
        out.push("the checker says clean".to_string());
    }
    if !checker.inconclusive.is_empty() {
        return out; // not clean, and nothing more to compare
    }
    let stopped = !checker.sync_defects.is_empty() || !checker.divergences.is_empty();
    if let Some(d) = exec.defects.keys().next().filter(|_| !stopped) {
        out.push(format!("executor defect {d:?}, no synchronization defect reported"));
    }
    if !stopped {
        let reported = checker_pairs(checker);
        for (pair, race) in &exec.races {
            if !reported.contains(pair) {
                out.push(format!("race {pair:?} not reported ({race:?})"));
            }
        }
    }
    out
}

/// Checker findings the executor did not observe (false alarms or races of schedules it did
/// not run).
fn extras(exec: &WarpReport, checker: &Report) -> usize {
    let seen: BTreeSet<Pair> = exec.races.keys().copied().collect();
    let races = checker_pairs(checker).difference(&seen).count();
    let defects = usize::from(exec.defects.is_empty() && !checker.sync_defects.is_empty());
    races + defects
}

/// The comparison itself can fail: a checker report that lost the races and defects of a
/// kernel the executor finds defective is a miss.
#[test]
fn a_checker_that_reports_nothing_misses() {
    let e = pipeline_entries()
        .into_iter()
        .find(|e| e.path.ends_with("ring2_no_producer_wait.cu"))
        .unwrap();
    let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).unwrap();
    let exec = execute(&unit.kernels[0]);
    let found = misses(&exec, &Report::default());
    assert!(found.len() >= 2, "{found:?}");
}

#[test]
fn warp_executor_agrees_with_the_pipeline_corpus() {
    let mut failures = Vec::new();
    for e in pipeline_entries() {
        let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).unwrap();
        let k = &unit.kernels[0];
        let exec = execute(k);
        if exec.is_clean() != (e.check.outcome == "clean") {
            failures.push(format!(
                "{}: manifest {}, executor saw {exec:?}",
                e.path, e.check.outcome
            ));
        }
        let checker = named::check(k, &NamedOptions::default());
        for m in misses(&exec, &checker) {
            failures.push(format!("{}: missed: {m}", e.path));
        }
        if extras(&exec, &checker) > 0 {
            eprintln!(
                "{}: {} checker findings the executor did not observe",
                e.path,
                extras(&exec, &checker)
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Generated pipelines checked by a full run: seeds `0..250`, about 30 s in release on 2 cores
/// (`common::sweep` scales it; `gen_ring SEED` prints one).
const GEN_CASES: u64 = 250;

/// Counts over the generated cases.
#[derive(Default, Debug)]
struct GenStats {
    cases: usize,
    defective: usize,
    defective_seen: usize,
    correct_clean: usize,
    correct: usize,
    extras: usize,
    extra_kernels: Vec<u64>,
    /// Rings filled by `cp.async` copies arriving through `cp.async.mbarrier.arrive`, the
    /// defective ones among them, and those the executor saw defective.
    cp_async: usize,
    cp_async_defective: usize,
    cp_async_defective_seen: usize,
}

#[test]
fn warp_executor_finds_nothing_the_checker_misses_on_generated_pipelines() {
    let mut stats = GenStats::default();
    let mut failures = Vec::new();
    for seed in 0..cases(GEN_CASES) {
        let g = generate_pipeline(seed);
        let text = g.to_cuda();
        let unit = front::lower_text(Path::new(&format!("pipe_{seed}.cu")), &text, &FrontOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: does not lower: {}\n{text}", e.message));
        let k = &unit.kernels[0];
        let exec = execute(k);
        let checker = named::check(k, &NamedOptions::default());
        for m in misses(&exec, &checker) {
            failures.push(format!("seed {seed} ({:?}): missed: {m}\n{text}", g.defect));
        }
        stats.cases += 1;
        if matches!(g.producer, Producer::CpAsync | Producer::CpAsyncNoinc) {
            stats.cp_async += 1;
            stats.cp_async_defective += usize::from(g.defect.is_some());
            stats.cp_async_defective_seen += usize::from(g.defect.is_some() && !exec.is_clean());
        }
        match g.defect {
            Some(_) => {
                stats.defective += 1;
                stats.defective_seen += usize::from(!exec.is_clean());
            }
            None => {
                stats.correct += 1;
                stats.correct_clean += usize::from(exec.is_clean());
            }
        }
        let extra = extras(&exec, &checker);
        if extra > 0 {
            let kinds: Vec<_> = checker.sync_defects.iter().map(|d| &d.kind).collect();
            eprintln!(
                "seed {seed} ({:?}, {:?}): checker {:?} {kinds:?}, executor {:?} {:?}",
                g.defect,
                g.combine,
                checker_pairs(&checker),
                exec.races.keys().collect::<Vec<_>>(),
                exec.defects.keys().collect::<Vec<_>>()
            );
            stats.extras += extra;
            stats.extra_kernels.push(seed);
        }
    }
    eprintln!("{stats:?}");
    assert!(
        failures.is_empty(),
        "{} misses:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        stats.correct_clean, stats.correct,
        "a correct generated ring is not clean: {stats:?}"
    );
    assert!(
        stats.defective_seen * 4 >= stats.defective * 3,
        "the executor sees too few defects: {stats:?}"
    );
    assert!(
        stats.cp_async_defective_seen * 4 >= stats.cp_async_defective * 3 && stats.cp_async * 5 >= stats.cases,
        "too few cp.async rings, or defects seen in them: {stats:?}"
    );
}
