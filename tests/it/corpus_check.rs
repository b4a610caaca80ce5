//! The oracle's verdict on every corpus kernel matches the manifest: the exact set of racing
//! line pairs (extra pairs only when listed as a known imprecision), divergences, and the class
//! of named-barrier defects.

use autosync::front;
use autosync::jobs::check::{check_kernel, check_kernel_within, OracleChoice};
use autosync::output::results::{verdict, Verdict};
use autosync_devtools::manifest::{self, Entry};
use autosync_oracle::report::{Report, SyncDefectKind};
use std::collections::BTreeSet;
use std::path::Path;

fn line_pairs(k: &autosync_oracle::ir::Kernel, r: &Report) -> BTreeSet<[u32; 2]> {
    pairs_of(k, &r.races)
}

fn pairs_of(k: &autosync_oracle::ir::Kernel, races: &[autosync_oracle::report::Race]) -> BTreeSet<[u32; 2]> {
    races
        .iter()
        .map(|x| {
            let (a, b) = (k.line(x.first.span), k.line(x.second.span));
            [a.min(b), a.max(b)]
        })
        .collect()
}

fn defect_classes(r: &Report) -> BTreeSet<&'static str> {
    let mut s = BTreeSet::new();
    for d in &r.sync_defects {
        s.insert(match d.kind {
            SyncDefectKind::Deadlock { .. } => "deadlock",
            SyncDefectKind::CountMismatch { .. } => "count-mismatch",
            SyncDefectKind::TooManyParticipants { .. } => "too-many-participants",
            SyncDefectKind::ArriveOnly => "arrive-only",
            SyncDefectKind::UnsafeRecycling { .. } => "unsafe-recycling",
            SyncDefectKind::BadId { .. } => "bad-id",
            SyncDefectKind::BadCount { .. } => "bad-count",
            SyncDefectKind::UninitializedUse { .. } => "mbarrier-uninitialized",
            SyncDefectKind::ArrivalOverflow { .. } => "mbarrier-overflow",
            SyncDefectKind::ParityMismatch { .. } => "mbarrier-parity",
            SyncDefectKind::TxMismatch { .. } => "mbarrier-tx",
            SyncDefectKind::PhaseOrder { .. } => "mbarrier-phase-order",
            SyncDefectKind::MissingProxyFence { .. } => "missing-proxy-fence",
            SyncDefectKind::AlwaysTraps { .. } => "always-traps",
        });
    }
    if r.divergences.iter().any(|d| d.within_warp) {
        s.insert("warp-divergent");
    }
    if !r.divergences.is_empty() {
        s.insert("divergent");
    }
    if !r.races.is_empty() {
        s.insert("racy");
    }
    s
}

/// Compares one entry read with its own front-end options.
fn compare(e: &Entry) -> Option<String> {
    compare_with(e, &e.front_options())
}

/// Compares one entry read with `fo`; returns a description of the mismatch, if any.
fn compare_with(e: &Entry, fo: &front::FrontOptions) -> Option<String> {
    let unit = match front::load(&e.file(Path::new("corpus")), fo) {
        Ok(u) => u,
        Err(err) => return Some(format!("does not lower: {err:?}")),
    };
    let k = &unit.kernels[0];
    let (r, checker) = check_kernel(k, OracleChoice::Auto, 4000);
    let got = line_pairs(k, &r);
    let want: BTreeSet<[u32; 2]> = e.check.races.iter().copied().collect();
    let imprecise: BTreeSet<[u32; 2]> = e.check.imprecise.iter().map(|i| i.lines).collect();
    let classes = defect_classes(&r);
    let missed: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).filter(|p| !imprecise.contains(*p)).collect();
    // A documented false alarm the checker no longer gives is stale: the manifest says what
    // the checker reports, exactly.
    let stale: Vec<_> = imprecise.difference(&got).collect();
    let outcome = e.check.outcome.as_str();
    let class_ok = match outcome {
        // Documented false alarms (checked as `extra` above) may remain; nothing else.
        "clean" => {
            verdict(&r) == Verdict::Clean
                || (r.divergences.is_empty() && r.sync_defects.is_empty() && r.inconclusive.is_empty())
        }
        "racy" | "unfixable" => classes.contains("racy") || classes.contains("divergent") || !r.sync_defects.is_empty(),
        "divergent" => classes.contains("divergent"),
        other => {
            classes.contains(other)
                || e.check
                    .alternative_outcomes
                    .iter()
                    .any(|a| classes.contains(a.outcome.as_str()))
        }
    };
    // Benign races are warnings, exactly those listed; `--strict` reports them as races.
    let benign_want: BTreeSet<[u32; 2]> = e.check.benign.iter().copied().collect();
    let benign_got = pairs_of(k, &r.benign);
    if benign_got != benign_want {
        return Some(format!("benign races {benign_got:?}, manifest {benign_want:?}"));
    }
    // So are races of overlapping layouts.
    let layout_want: BTreeSet<[u32; 2]> = e.check.layout.iter().copied().collect();
    let layout_got = pairs_of(k, &r.overlap);
    if layout_got != layout_want {
        return Some(format!("layout races {layout_got:?}, manifest {layout_want:?}"));
    }
    if !benign_want.is_empty() || !layout_want.is_empty() {
        let (strict, _) = check_kernel_within(k, OracleChoice::Auto, 4000, None, true);
        let all: BTreeSet<[u32; 2]> = got.union(&benign_want).chain(&layout_want).copied().collect();
        if !strict.benign.is_empty() || !strict.overlap.is_empty() || line_pairs(k, &strict) != all {
            return Some(format!(
                "--strict: races {:?}, expected {all:?}",
                line_pairs(k, &strict)
            ));
        }
    }
    if missed.is_empty() && extra.is_empty() && stale.is_empty() && class_ok {
        return None;
    }
    Some(format!(
        "{checker}: expected {outcome} {want:?}; missed {missed:?}, extra {extra:?}, no longer reported (stale `imprecise`) {stale:?}, classes {classes:?}, inconclusive {:?}",
        r.inconclusive.iter().map(|i| &i.message).collect::<Vec<_>>()
    ))
}

#[test]
fn oracle_verdicts_match_the_manifest() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let failures: Vec<String> = m
        .kernels
        .iter()
        .filter_map(|e| compare(e).map(|why| format!("{} ({}): {why}", e.path, e.kernel)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} kernels disagree:\n{}",
        failures.len(),
        m.kernels.len(),
        failures.join("\n")
    );
}

/// Every kernel that does not need the real toolkit gets the same verdict when read with it
/// as with autosync's shim (the manifest's), so the shim stands in for the toolkit faithfully.
/// The C++ constructs (group `cpp`) always; of the rest an evenly spread share on the merge
/// gate, all with `AUTOSYNC_FULL_SWEEPS=1`.
#[test]
fn toolkit_verdicts_match_the_shims() {
    let Some(tk) = autosync_devtools::toolkit::for_test("toolkit_verdicts_match_the_shims") else {
        return;
    };
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let shim_only: Vec<&Entry> = m
        .kernels
        .iter()
        .enumerate()
        .filter(|(i, e)| e.group == "cpp" || autosync_devtools::sweep::keeps(*i, 2))
        .map(|(_, e)| e)
        .filter(|e| !e.needs_toolkit() && !e.shim_only())
        .collect();
    let failures: Vec<String> = shim_only
        .iter()
        .filter_map(|e| {
            compare_with(e, &e.front_options_in(Some(&tk))).map(|why| format!("{} ({}): {why}", e.path, e.kernel))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "with the real toolkit, {} of {} kernels disagree:\n{}",
        failures.len(),
        shim_only.len(),
        failures.join("\n")
    );
}

/// A kernel marked `toolkit: shim` is read differently with the real toolkit (the notes say
/// why); there it must stop with an error (unsupported or inconclusive), never lower to a
/// verdict other than the manifest's.
#[test]
fn shim_only_kernels_stop_or_agree_with_the_toolkit() {
    let Some(tk) = autosync_devtools::toolkit::for_test("shim_only_kernels_stop_or_agree_with_the_toolkit") else {
        return;
    };
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    for e in m.kernels.iter().filter(|e| e.shim_only()) {
        let fo = e.front_options_in(Some(&tk));
        if front::load(&e.file(Path::new("corpus")), &fo).is_err() {
            continue;
        }
        if let Some(why) = compare_with(e, &fo) {
            panic!(
                "{} ({}) lowers with the real toolkit to another verdict: {why}",
                e.path, e.kernel
            );
        }
    }
}

/// A kernel marked `pending` (autosync cannot give its verdict yet) still disagrees with the
/// manifest: once it agrees, the mark must go and the kernel joins the tests above.
#[test]
fn pending_kernels_are_still_pending() {
    let m = manifest::load_readable(Path::new("corpus/manifest.yaml")).unwrap();
    for e in m.kernels.iter().filter(|e| e.pending.is_some()) {
        assert!(
            compare(e).is_some(),
            "{} now gets its manifest verdict: remove `pending` ({})",
            e.path,
            e.pending.as_deref().unwrap_or("")
        );
    }
}

/// Read from the toolkit's headers instead of the precompiled prelude (what happens when Clang
/// refuses a stale one), kernels that call each family the prelude defines with bodies
/// (atomics, warp shuffles and votes, barriers' vote forms, integer and math intrinsics,
/// memory blocks, the builtin variables' conversions, cooperative groups, CUB, cuRAND) get
/// the manifest's verdicts: the lowering models those by name however Clang shows them.
#[test]
fn toolkit_reads_alike_without_the_precompiled_prelude() {
    let Some(tk) = autosync_devtools::toolkit::for_test("toolkit_reads_alike_without_the_precompiled_prelude") else {
        return;
    };
    let families = [
        "lib/atomic_slot_racy.cu",
        "sdk/histogram_shared.cu",
        "real/integral_rows.cu",
        "precision/vote_loop_racy.cu",
        "cpp/cuda_arch.cu",
        "precision/mul24_index_racy.cu",
        "lib/vector_structs.cu",
        "lib/memcpy_shared.cu",
        "lib/memset_staging.cu",
        "toolkit/cg_block_sync_racy.cu",
        "toolkit/cub_block_scan.cu",
        "toolkit/curand_philox.cu",
    ];
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let chosen: Vec<&Entry> = m
        .kernels
        .iter()
        .filter(|e| families.contains(&e.path.as_str()))
        .collect();
    assert_eq!(chosen.len(), families.len(), "a listed kernel is not in the manifest");
    let failures: Vec<String> = chosen
        .iter()
        .filter_map(|e| {
            let mut o = e.front_options_in(Some(&tk));
            o.clang.plain_prelude = true;
            compare_with(e, &o).map(|why| format!("{} ({}): {why}", e.path, e.kernel))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "without the precompiled prelude:\n{}",
        failures.join("\n")
    );
}

/// A verdict as the differential test compares it: the racing label pairs with their arrays,
/// kinds, scopes and relations (harmful, benign, layout), the divergences and what left the
/// check inconclusive (not witnesses or counts).
fn verdict_of(r: &Report) -> String {
    let races = |rs: &[autosync_oracle::report::Race]| -> Vec<String> {
        let mut v: Vec<String> = rs
            .iter()
            .map(|x| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?}",
                    x.array, x.first.label, x.second.label, x.kind, x.scope, x.relations
                )
            })
            .collect();
        v.sort();
        v
    };
    let divergences: Vec<String> = r.divergences.iter().map(|d| format!("{:?}", d.span)).collect();
    let inconclusive: Vec<&String> = r.inconclusive.iter().map(|i| &i.message).collect();
    format!(
        "races {:?}\nbenign {:?}\nlayout {:?}\ndivergences {divergences:?}\ninconclusive {inconclusive:?}",
        races(&r.races),
        races(&r.benign),
        races(&r.overlap)
    )
}

/// The injectivity test (element-wise accesses settled without the solver) changes no SDV
/// verdict on the corpus: every kernel the SDV checker checks gets the same races, benign and
/// layout races, divergences and inconclusive reasons with the test as without it (an evenly
/// spread half on the merge gate, all with `AUTOSYNC_FULL_SWEEPS=1`; the element-wise kernel,
/// the grid-stride loop over bytes and the index rebuilt from its coordinates always).
#[test]
fn the_injectivity_test_changes_no_corpus_verdict() {
    use autosync_oracle::sdv::{self, SdvOptions};
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let mut failures = Vec::new();
    let (mut checked, mut settled) = (0, 0);
    for (n, e) in m.kernels.iter().enumerate() {
        let always = matches!(
            e.path.as_str(),
            "sdk/axpy_elementwise.cu" | "stride/grid_bytes.cu" | "stride/mixed_radix.cu" | "stride/mixed_radix_racy.cu"
        );
        if !(always || crate::common::sweep::full() || n % 2 == 0) {
            continue;
        }
        let Ok(unit) = front::load(&e.file(Path::new("corpus")), &e.front_options()) else {
            continue;
        };
        for k in unit
            .kernels
            .iter()
            .filter(|k| !autosync_oracle::tree::uses_named_barriers(k))
        {
            let opts = |injective_test| SdvOptions {
                timeout_ms: 4000,
                injective_test,
                ..Default::default()
            };
            let (on, off) = (sdv::check(k, &opts(true)), sdv::check(k, &opts(false)));
            assert_eq!(off.settled_by_injectivity, 0);
            checked += 1;
            settled += on.settled_by_injectivity;
            if on.out_of_time || off.out_of_time {
                continue;
            }
            let (a, b) = (verdict_of(&on), verdict_of(&off));
            if a != b {
                failures.push(format!("{} ({}):\nwith the test:\n{a}\nwithout:\n{b}", e.path, k.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The test is exercised, not only trivially never applied.
    assert!(checked > 20 && settled > 10, "{checked} kernels, {settled} settled");
}
