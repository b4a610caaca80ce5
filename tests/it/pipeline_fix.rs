//! `fix` on the async-pipeline corpus (`corpus/pipeline/`, mbarriers and async copies): the
//! outcome, reason, barrier count and cost of the manifest, and a patched kernel that the named
//! checker verifies when read back from its text; the missing mbarrier arrives and waits
//! synthesized for the stripped rings, as diffs; the generated benchmark ring without its
//! release, fixed back to the author's text.
//!
//! Every fix is verified by the named checker (on the IR and on the text read back) and then,
//! independently, by the warp-scheduling reference executor (`oracle/src/exec/`): the patched
//! text runs clean under many schedules, where the unfixed twin shows its defect.

use autosync::front::{self, FrontOptions};
use autosync::jobs::fix::{fix_file, fix_text, FixOptions};
use autosync::synth::named::{self, NamedOutcome};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest::{self, Entry};
use autosync_devtools::workload::{ring_kernel, RingShape};
use autosync_oracle::exec::{execute_warps, ExecConfig, Schedule, WarpReport};
use autosync_oracle::ir::Kernel;
use autosync_oracle::named::{check, NamedOptions};
use std::path::Path;

fn pipeline_entries() -> Vec<Entry> {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    m.kernels.into_iter().filter(|e| e.group == "pipeline").collect()
}

/// The reasons named synthesis gives for an unfixable kernel.
fn unfixable_reasons(e: &Entry) -> Vec<&'static str> {
    let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).unwrap();
    match named::synthesize(&unit.kernels[0], &SynthOptions::default()).outcome {
        NamedOutcome::Unfixable(why) => why.iter().map(|w| w.reason()).collect(),
        other => panic!("{}: {other:?}", e.path),
    }
}

/// Compares one entry; returns the mismatch, if any.
fn compare(e: &Entry) -> Option<String> {
    let want = e.fix.as_ref().expect("pipeline entries state their fix outcome");
    let r = fix_file(&e.file(Path::new("corpus")), &e.front_options(), &FixOptions::default()).unwrap();
    let kf = &r.kernels[0];
    if kf.status != want.outcome {
        return Some(format!("{} ({:?}), manifest {}", kf.status, kf.reasons, want.outcome));
    }
    match kf.status {
        "fixed" => {
            let got = kf.barriers.len() as u32;
            if want.barriers.is_some_and(|n| got > n) {
                return Some(format!("{got} statements, manifest {:?}", want.barriers));
            }
            if want.cost.is_some_and(|c| (c - kf.cost).abs() > 1e-6) {
                return Some(format!("cost {}, manifest {:?}", kf.cost, want.cost));
            }
            let text = r.patched.as_deref().unwrap();
            let unit = front::lower_text(&e.file(Path::new("corpus")), text, &e.front_options()).unwrap();
            let rep = check(&unit.kernels[0], &NamedOptions::default());
            if !rep.is_clean() {
                return Some(format!("patched kernel does not verify: {rep:?}"));
            }
        }
        "unfixable" => {
            let reasons = unfixable_reasons(e);
            if !want.reason.as_deref().is_some_and(|w| reasons.contains(&w)) {
                return Some(format!("reasons {reasons:?}, manifest {:?}", want.reason));
            }
        }
        _ => {}
    }
    None
}

#[test]
fn pipeline_fixes_meet_the_manifest() {
    let es = pipeline_entries();
    assert!(es.len() >= 18, "{} pipeline kernels", es.len());
    let failures: Vec<String> = es
        .iter()
        .filter_map(|e| compare(e).map(|why| format!("{}: {why}", e.path)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernels whose protocol misses an mbarrier operation, fixed by writing it back.
const STRIPPED: [&str; 8] = [
    "pipeline/ring2_no_release.cu",
    "pipeline/tma_ring2_no_consumer_wait.cu",
    "pipeline/ring2_no_producer_wait.cu",
    "pipeline/ring2_no_consumer_wait.cu",
    "pipeline/ring4_named_no_release.cu",
    "pipeline/ring4_named_no_consumer_wait.cu",
    "pipeline/ring4_ptx_no_consumer_wait.cu",
    "pipeline/ring4_builtin_no_release.cu",
];

/// Each stripped ring gets the one statement it lacks, written as the file writes its own
/// (its helpers, its operand for the stage, its phase variable or wrap count); the diff is
/// snapshotted and the patched text verifies.
#[test]
fn missing_mbarrier_operations_are_written_back() {
    let es = pipeline_entries();
    for path in STRIPPED {
        let e = es.iter().find(|e| e.path == path).expect("in the manifest");
        let r = fix_file(&e.file(Path::new("corpus")), &e.front_options(), &FixOptions::default()).unwrap();
        assert_eq!(r.kernels[0].status, "fixed", "{path}: {:?}", r.kernels[0].reasons);
        assert_eq!(r.kernels[0].barriers.len(), 1, "{path}");
        let unit = front::lower_text(
            &e.file(Path::new("corpus")),
            r.patched.as_deref().unwrap(),
            &e.front_options(),
        )
        .unwrap();
        let rep = check(&unit.kernels[0], &NamedOptions::default());
        assert!(rep.is_clean(), "{path}: {rep:?}");
        insta::assert_snapshot!(path.replace(['/', '.'], "_"), r.diff);
    }
}

/// A gap no candidate closes stays unfixable, with the defect and why synthesis gave up.
#[test]
fn an_unclosable_gap_is_reported_not_written() {
    let es = pipeline_entries();
    let e = es
        .iter()
        .find(|e| e.path == "pipeline/ring2_no_release_count96.cu")
        .unwrap();
    let r = fix_file(&e.file(Path::new("corpus")), &e.front_options(), &FixOptions::default()).unwrap();
    let kf = &r.kernels[0];
    assert_eq!(kf.status, "unfixable");
    assert!(r.patched.is_none() && r.diff.is_empty());
    assert!(
        kf.reasons
            .iter()
            .any(|w| w.starts_with("no placement of the missing mbarrier operations verifies")),
        "{:?}",
        kf.reasons
    );
}

/// The benchmark's ring without the consumers' release (inline PTX, a wait helper but no
/// arrive helper) is fixed back to exactly the ring with its release.
#[test]
fn generated_ring_without_its_release_is_fixed_back() {
    let shape = RingShape {
        stages: 4,
        consumer_groups: 1,
        iterations: 8,
        drop_release: true,
    };
    let opts = FrontOptions {
        params: [("iters".to_string(), 8)].into(),
        ..Default::default()
    };
    let path = Path::new("generated_ring.cu");
    let r = fix_text(path, &ring_kernel(&shape), &opts, &FixOptions::default()).unwrap();
    assert_eq!(r.kernels[0].status, "fixed", "{:?}", r.kernels[0].reasons);
    let kept = ring_kernel(&RingShape {
        drop_release: false,
        ..shape
    });
    assert_eq!(r.patched.as_deref(), Some(kept.as_str()), "{}", r.diff);
}

/// Pseudo-random schedules the executor runs each kernel under (besides the five fixed ones).
const EXEC_RANDOM: u64 = 48;

/// The reference executor on `k` under many schedules.
fn execute(k: &Kernel) -> WarpReport {
    let cfg = ExecConfig::from_launch(&k.launch).expect("pipeline kernels have a blockDim");
    execute_warps(k, &cfg, &Schedule::standard(EXEC_RANDOM)).unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

/// What the executor saw, in one line.
fn seen(r: &WarpReport) -> String {
    let defects: Vec<&str> = r.defects.keys().map(|d| d.name()).collect();
    format!("{} race pair(s), defects {defects:?}", r.races.len())
}

/// Every defective pipeline kernel the manifest says `fix` repairs or gives up on (the stripped
/// mbarrier twins among them), judged by the reference executor instead of the checker that
/// guided the fix: it finds the defect in the kernel as written, and no race, deadlock or
/// mbarrier defect in the text `fix` writes, under 53 schedules.
#[test]
fn the_reference_executor_accepts_every_pipeline_fix() {
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    for e in pipeline_entries().iter().filter(|e| e.check.outcome != "clean") {
        let file = e.file(Path::new("corpus"));
        let unit = front::load(&file, &e.front_options()).unwrap();
        let before = execute(&unit.kernels[0]);
        if before.is_clean() {
            failures.push(format!("{}: the executor sees no defect in the unfixed kernel", e.path));
        }
        let r = fix_file(&file, &e.front_options(), &FixOptions::default()).unwrap();
        let Some(text) = r.patched.as_deref().filter(|_| r.kernels[0].status == "fixed") else {
            continue;
        };
        let unit = front::lower_text(&file, text, &e.front_options()).unwrap();
        let after = execute(&unit.kernels[0]);
        if !after.is_clean() {
            failures.push(format!(
                "{}: the fixed text still shows {}\n{}",
                e.path,
                seen(&after),
                r.diff
            ));
        }
        fixed.push(e.path.as_str().to_string());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for path in STRIPPED {
        assert!(fixed.iter().any(|p| p == path), "{path} was not fixed: {fixed:?}");
    }
}

/// The same for the benchmark's generated 4-stage ring with its release dropped.
#[test]
fn the_reference_executor_accepts_the_generated_ring_fix() {
    let shape = RingShape {
        stages: 4,
        consumer_groups: 1,
        iterations: 8,
        drop_release: true,
    };
    let opts = FrontOptions {
        params: [("iters".to_string(), 8)].into(),
        ..Default::default()
    };
    let path = Path::new("generated_ring.cu");
    let stripped = front::lower_text(path, &ring_kernel(&shape), &opts).unwrap();
    let before = execute(&stripped.kernels[0]);
    assert!(!before.is_clean(), "no defect seen in the stripped ring");
    let r = fix_text(path, &ring_kernel(&shape), &opts, &FixOptions::default()).unwrap();
    let unit = front::lower_text(path, r.patched.as_deref().unwrap(), &opts).unwrap();
    let after = execute(&unit.kernels[0]);
    assert!(after.is_clean(), "{}", seen(&after));
}
