//! `fix` on the async-pipeline corpus (`corpus/pipeline/`, mbarriers and async copies): the
//! outcome, reason and barrier count of the manifest, and a patched kernel that the named
//! checker verifies when read back from its text.

use autosync::front;
use autosync::jobs::fix::{fix_file, FixOptions};
use autosync::synth::named::{self, NamedOutcome};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest::{self, Entry};
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
    assert!(es.len() >= 13, "{} pipeline kernels", es.len());
    let failures: Vec<String> = es
        .iter()
        .filter_map(|e| compare(e).map(|why| format!("{}: {why}", e.path)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
