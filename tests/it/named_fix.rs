//! Named-barrier synthesis on the warp-specialized corpus: unsynchronized kernels are fixed and
//! verified, correct kernels stripped of their barriers are re-synthesized, IDs respect the
//! allowed set, and the diffs are snapshotted.

use autosync::front;
use autosync::jobs::fix::{fix_file, FixOptions};
use autosync::synth::named::roles::{Roles, WARP};
use autosync::synth::named::{self, NamedKind, NamedOutcome, NamedPlaced, NamedSettings};
use autosync::synth::space::SynthOptions;
use autosync_devtools::manifest::{self, Entry};
use autosync_oracle::ir::{Kernel, StmtKind};
use autosync_oracle::named::{check, NamedOptions};
use autosync_oracle::tree::{for_each_stmt, remove_stmts};
use std::collections::BTreeMap;
use std::path::Path;

fn entries(filter: impl Fn(&Entry) -> bool) -> Vec<Entry> {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    m.kernels.into_iter().filter(|e| filter(e)).collect()
}

fn load(e: &Entry) -> Kernel {
    front::load(&e.file(Path::new("corpus")), &e.front_options())
        .unwrap()
        .kernels
        .remove(0)
}

fn fix_opts(named: NamedSettings, annotate: bool) -> FixOptions {
    FixOptions {
        synth: SynthOptions {
            named,
            ..Default::default()
        },
        annotate,
        ..Default::default()
    }
}

/// Lowers the patched text again and runs the named checker on it.
fn verify_text(e: &Entry, text: &str) {
    let unit = front::lower_text(&e.file(Path::new("corpus")), text, &e.front_options()).unwrap();
    for k in &unit.kernels {
        let r = check(k, &NamedOptions::default());
        assert!(r.is_clean(), "{}: patched kernel does not verify: {r:#?}", e.path);
    }
}

fn named_ids(placed: &[NamedPlaced]) -> BTreeMap<u32, Vec<&NamedPlaced>> {
    let mut m: BTreeMap<u32, Vec<&NamedPlaced>> = BTreeMap::new();
    for p in placed {
        // A rotating channel uses each of its IDs (`base + k % e`).
        for id in p.ids() {
            m.entry(id).or_default().push(p);
        }
    }
    m
}

/// IDs come from the allowed set; each ID is one sub-block barrier or one channel (two ends
/// in different roles), whose count is 32 × its participating warps.
fn assert_ids_and_counts(k: &Kernel, placed: &[NamedPlaced], allowed: &[u32], what: &str) {
    let roles = Roles::new(k, &autosync_oracle::sdv::uniformity(k)).unwrap();
    for (id, ps) in named_ids(placed) {
        assert!(allowed.contains(&id), "{what}: ID {id} not allowed");
        let mut warps: Vec<u32> = ps.iter().flat_map(|p| roles.warps_at(p.pos).unwrap()).collect();
        let total = warps.len();
        warps.sort_unstable();
        warps.dedup();
        assert_eq!(total, warps.len(), "{what}: ID {id} is shared by overlapping warp sets");
        assert!(ps.len() <= 2, "{what}: ID {id} used by {} statements", ps.len());
        for p in &ps {
            let (NamedKind::Sync { count, .. } | NamedKind::Arrive { count, .. }) = p.kind else {
                unreachable!()
            };
            assert_eq!(count, WARP * warps.len() as u32, "{what}: ID {id} count");
        }
        if ps.len() == 2 {
            assert!(
                ps.iter().all(|p| p.channel),
                "{what}: ID {id} has two ends but no channel"
            );
        }
    }
}

#[test]
fn unsynced_kernels_are_fixed_verified_and_within_manifest_counts() {
    let es = entries(|e| e.path.starts_with("named/unsynced/"));
    assert_eq!(es.len(), 11);
    let mut over = Vec::new();
    for e in &es {
        let r = fix_file(
            &e.file(Path::new("corpus")),
            &e.front_options(),
            &fix_opts(NamedSettings::default(), false),
        )
        .unwrap();
        let kf = &r.kernels[0];
        assert_eq!(kf.status, "fixed", "{}: {:?}", e.path, kf.reasons);
        verify_text(e, r.patched.as_deref().unwrap());
        let want = e.fix.as_ref().and_then(|f| f.barriers).unwrap();
        let got = kf.barriers.len() as u32;
        eprintln!("{}: {got} statements (manifest {want}), cost {}", e.path, kf.cost);
        if got > want {
            over.push(format!("{}: {got} > {want}", e.path));
        }
        let k = load(e);
        let syn = named::synthesize(&k, &SynthOptions::default());
        let NamedOutcome::Fixed { barriers, .. } = &syn.outcome else {
            panic!("{}: {:?}", e.path, syn.outcome)
        };
        assert_ids_and_counts(&k, barriers, &NamedSettings::default().allowed_ids, &e.path);
    }
    assert!(over.is_empty(), "more statements than the manifest: {over:?}");
}

#[test]
fn stripped_correct_kernels_are_resynthesized() {
    let es = entries(|e| e.group == "named" && e.check.outcome == "clean" && e.original_barriers.unwrap_or(0) > 0);
    assert!(es.len() >= 8, "{}", es.len());
    let opts = SynthOptions::default();
    for e in &es {
        let k = load(e);
        let mut labels = Vec::new();
        for_each_stmt(&k.body, &mut |s| {
            if matches!(s.kind, StmtKind::Barrier(..)) {
                labels.push(s.label);
            }
        });
        let stripped = remove_stmts(&k, &labels);
        let syn = named::synthesize(&stripped, &opts);
        let NamedOutcome::Fixed { barriers, cost } = &syn.outcome else {
            panic!("{}: {:?}", e.path, syn.outcome)
        };
        // Independent re-check of the placement.
        let fixed = named::apply(&stripped, barriers).unwrap();
        assert!(check(&fixed, &NamedOptions::default()).is_clean(), "{}", e.path);
        assert_ids_and_counts(&stripped, barriers, &opts.named.allowed_ids, &e.path);
        // Guards the author wrote (`if (k > 0)`) are priced like any condition; synthesis
        // writes such guards itself when it shifts a channel.
        let (n0, orig) = named::existing_cost(&k, &opts);
        eprintln!(
            "{}: {} statements cost {cost} (original {n0} statements cost {orig}); {} oracle calls",
            e.path,
            barriers.len(),
            syn.stats.oracle_calls
        );
        assert!(
            *cost <= orig + 1e-9,
            "{}: cost {cost} above the original's {orig}",
            e.path
        );
    }
}

#[test]
fn reserved_ids_are_honoured() {
    let e = &entries(|e| e.path == "named/unsynced/two_channels.cu")[0];
    let reserved = named::parse_id_set("0-6").unwrap();
    let settings = NamedSettings::with_reserved(&reserved);
    let k = load(e);
    let syn = named::synthesize(
        &k,
        &SynthOptions {
            named: settings.clone(),
            ..Default::default()
        },
    );
    let NamedOutcome::Fixed { barriers, .. } = &syn.outcome else {
        panic!("{:?}", syn.outcome)
    };
    let ids = named_ids(barriers);
    assert_eq!(ids.len(), 2);
    assert!(ids.keys().all(|&i| i >= 7), "{ids:?}");
    assert_ids_and_counts(&k, barriers, &settings.allowed_ids, "two_channels");
}

#[test]
fn too_few_ids_is_unfixable() {
    let e = &entries(|e| e.path == "named/unsynced/two_channels.cu")[0];
    let r = fix_file(
        &e.file(Path::new("corpus")),
        &e.front_options(),
        &fix_opts(
            NamedSettings {
                allowed_ids: vec![9],
                ..Default::default()
            },
            false,
        ),
    )
    .unwrap();
    assert_eq!(r.kernels[0].status, "unfixable");
    assert!(r.kernels[0].reasons[0].contains("IDs"), "{:?}", r.kernels[0].reasons);
    assert!(r.patched.is_none());
}

#[test]
fn existing_ids_are_kept_and_avoided() {
    let e = &entries(|e| e.path == "named/arrive_before_write.cu")[0];
    let (r, text) = fix_verified(e);
    // The kernel's own barriers on ID 1 are untouched; the new channel uses another ID.
    assert!(text.contains("bar.arrive 1, 64;") && text.contains("bar.sync 1, 64;"));
    for b in &r.kernels[0].barriers {
        assert!(!b.text.contains("\"r\"(1)"), "{}", b.text);
    }
}

/// The channels that would leave the copy loop of `early_read_dma.cu` (arrive after it, sync
/// before the compute loop) all deadlock; each is ruled out once together with every placement
/// that contains it, so the in-loop pair is reached in a few rounds instead of the refinement
/// running out of rounds on supersets of the deadlocking ones.
#[test]
fn deadlocking_channels_are_ruled_out_with_their_supersets() {
    let e = &entries(|e| e.path == "named/early_read_dma.cu")[0];
    let k = load(e);
    let syn = named::synthesize(&k, &SynthOptions::default());
    let NamedOutcome::Fixed { barriers, .. } = &syn.outcome else {
        panic!("{:?} after {} rounds", syn.outcome, syn.stats.rounds)
    };
    assert!(syn.stats.rounds <= 8, "{} rounds", syn.stats.rounds);
    let used = named::used_ids(&k);
    let mut kinds: Vec<(&str, u32)> = barriers
        .iter()
        .map(|b| match b.kind {
            NamedKind::Arrive { id, count } if !used.contains(&id) => ("arrive", count),
            NamedKind::Sync { id, count } if !used.contains(&id) => ("sync", count),
            ref other => panic!("unexpected {other:?}"),
        })
        .collect();
    kinds.sort();
    assert_eq!(kinds, [("arrive", 96), ("sync", 96)]);
    let (_, text) = fix_verified(e);
    // The arrive follows the copy call inside the copy loop; the sync precedes the early read.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let call = lines.iter().position(|l| l.starts_with("copy_tile(tile")).unwrap();
    assert!(lines[call + 1].contains("bar.arrive %0, %1;"), "{text}");
    let read = lines.iter().position(|l| *l == "float acc = tile[c];").unwrap();
    assert!(lines[read - 1].contains("bar.sync %0, %1;"), "{text}");
}

/// `fix` on a manifest entry with the default settings: fixed, and the patched text verifies.
fn fix_verified(e: &Entry) -> (autosync::jobs::fix::FileFix, String) {
    let mut r = fix_file(
        &e.file(Path::new("corpus")),
        &e.front_options(),
        &fix_opts(NamedSettings::default(), false),
    )
    .unwrap();
    assert_eq!(r.kernels[0].status, "fixed", "{:?}", r.kernels[0].reasons);
    let text = r.patched.take().unwrap();
    verify_text(e, &text);
    (r, text)
}

fn fix_text(name: &str, src: &str) -> autosync::jobs::fix::FileFix {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, src).unwrap();
    fix_file(
        &p,
        &front::FrontOptions::default(),
        &fix_opts(NamedSettings::default(), false),
    )
    .unwrap()
}

#[test]
fn lane_divergent_race_is_unfixable() {
    let r = fix_text(
        "lanes.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void lanes(float *out)\n{\n    __shared__ float s[64];\n    int t = threadIdx.x;\n    if (t % 2 == 0) {\n        s[t] = 1.0f;\n        out[t] = s[t ^ 2];\n    }\n}\n",
    );
    assert_eq!(r.kernels[0].status, "unfixable", "{:?}", r.kernels[0]);
    assert!(
        r.kernels[0].reasons.iter().any(|x| x.contains("lane-divergent")),
        "{:?}",
        r.kernels[0].reasons
    );
}

#[test]
fn role_loops_with_different_trip_counts_are_unfixable() {
    let r = fix_text(
        "trips.cu",
        "//--blockDim=64 --gridDim=1\n__global__ void trips(const float *in, float *out)\n{\n    __shared__ float buf[32];\n    int warp = threadIdx.x / 32;\n    int lane = threadIdx.x % 32;\n    if (warp == 0) {\n        for (int k = 0; k < 4; ++k) {\n            buf[lane] = in[k * 32 + lane];\n        }\n    } else {\n        for (int k = 0; k < 3; ++k) {\n            out[k * 32 + lane] = buf[31 - lane];\n        }\n    }\n}\n",
    );
    assert_eq!(r.kernels[0].status, "unfixable", "{:?}", r.kernels[0]);
    assert!(
        r.kernels[0].reasons[0].contains("trip counts"),
        "{:?}",
        r.kernels[0].reasons
    );
}

#[test]
fn fixing_the_output_again_changes_nothing() {
    for e in entries(|e| e.path.starts_with("named/unsynced/")) {
        let first = fix_file(
            &e.file(Path::new("corpus")),
            &e.front_options(),
            &fix_opts(NamedSettings::default(), false),
        )
        .unwrap();
        let text = first.patched.unwrap();
        let unit = front::lower_text(&e.file(Path::new("corpus")), &text, &e.front_options()).unwrap();
        let syn = named::synthesize(&unit.kernels[0], &SynthOptions::default());
        assert!(
            matches!(syn.outcome, NamedOutcome::AlreadyClean),
            "{}: {:?}",
            e.path,
            syn.outcome
        );
    }
}

#[test]
fn named_fix_diff_snapshots() {
    const FILES: &[&str] = &[
        "named/unsynced/single_shot.cu",
        "named/unsynced/double_buffer.cu",
        "named/unsynced/pipeline.cu",
        "named/unsynced/subblock_reduce.cu",
        "named/unsynced/pair_exchange.cu",
        "named/unsynced/tile_loops.cu",
        "named/unsynced/two_channels.cu",
        "named/arrive_before_write.cu",
    ];
    for f in FILES {
        let e = &entries(|e| e.path == *f)[0];
        let r = fix_file(
            &e.file(Path::new("corpus")),
            &e.front_options(),
            &fix_opts(NamedSettings::default(), true),
        )
        .unwrap();
        assert!(r.changed, "{f}");
        insta::assert_snapshot!(format!("named_{}", f.replace(['/', '.'], "_")), r.diff);
    }
}

#[test]
fn cutlass_style_follows_the_kernel() {
    let e = &entries(|e| e.path == "named/cutlass_style.cu")[0];
    let k = load(e);
    assert_eq!(
        named::style_for(&k, &NamedSettings::default()),
        named::NamedStyle::Cutlass
    );
    let e2 = &entries(|e| e.path == "named/unsynced/single_shot.cu")[0];
    assert_eq!(
        named::style_for(&load(e2), &NamedSettings::default()),
        named::NamedStyle::Asm
    );
    assert_eq!(
        NamedKind::Sync { id: 3, count: 64 }.text(named::NamedStyle::Cutlass),
        "NamedBarrier::sync(64, 3);"
    );
}

#[test]
fn sequential_sub_block_barriers_share_an_id_when_ids_run_out() {
    let src = "//--blockDim=128 --gridDim=1\n__global__ void phases(const float *in, float *out)\n{\n    __shared__ float x[64];\n    int t = threadIdx.x;\n    int warp = t / 32;\n    if (warp < 2) {\n        x[t] = in[t];\n        float a = x[63 - t];\n        x[t] = a + 1.0f;\n        out[t] = x[t ^ 32];\n    } else {\n        out[t] = in[t] * 2.0f;\n    }\n}\n";
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("phases.cu");
    std::fs::write(&p, src).unwrap();
    let k = front::load(&p, &front::FrontOptions::default())
        .unwrap()
        .kernels
        .remove(0);
    let one = SynthOptions {
        named: NamedSettings {
            allowed_ids: vec![9],
            ..Default::default()
        },
        ..Default::default()
    };
    let syn = named::synthesize(&k, &one);
    let NamedOutcome::Fixed { barriers, .. } = &syn.outcome else {
        panic!("{:?}", syn.outcome)
    };
    assert_eq!(barriers.len(), 3);
    assert!(
        barriers.iter().all(|b| b.kind == NamedKind::Sync { id: 9, count: 64 }),
        "{barriers:?}"
    );
    assert!(check(&named::apply(&k, barriers).unwrap(), &NamedOptions::default()).is_clean());
    // With the default set every barrier gets its own ID.
    let syn = named::synthesize(&k, &SynthOptions::default());
    let NamedOutcome::Fixed { barriers, .. } = &syn.outcome else {
        panic!("{:?}", syn.outcome)
    };
    assert_eq!(named_ids(barriers).len(), 3);
}

#[test]
fn kernel_ids_are_collected() {
    let pc = &entries(|e| e.path == "named/two_stage_pipeline.cu")[0];
    assert_eq!(
        named::used_ids(&load(pc)).into_iter().collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    assert!(!named::has_computed_ids(&load(pc)));
    let db = &entries(|e| e.path == "named/pipeline_double_buffer.cu")[0];
    assert!(named::has_computed_ids(&load(db)));
}

/// The kernel's source with every barrier statement deleted (and `if` blocks left empty by
/// that), as an author would write it before synchronizing.
fn strip_text(src: &str) -> String {
    let at = src.find("__global__").unwrap();
    let (head, body) = src.split_at(at);
    let is_barrier = |t: &str| {
        [
            "asm volatile(\"bar.",
            "NamedBarrier::",
            "named_sync(",
            "named_arrive(",
            "__syncthreads()",
        ]
        .iter()
        .any(|p| t.starts_with(p))
    };
    let mut kept: Vec<&str> = Vec::new();
    for line in body.lines() {
        let t = line.trim();
        if is_barrier(t) {
            continue;
        }
        if t == "}"
            && kept
                .last()
                .is_some_and(|l| l.trim_start().starts_with("if (") && l.trim_end().ends_with('{'))
        {
            kept.pop();
            continue;
        }
        kept.push(line);
    }
    format!("{head}{}\n", kept.join("\n"))
}

#[test]
fn stripped_correct_kernels_are_fixed_through_the_text() {
    let es = entries(|e| e.group == "named" && e.check.outcome == "clean" && e.original_barriers.unwrap_or(0) > 0);
    assert!(es.len() >= 8, "{}", es.len());
    for e in &es {
        let path = e.file(Path::new("corpus"));
        let src = std::fs::read_to_string(&path).unwrap();
        let stripped = strip_text(&src);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(path.file_name().unwrap());
        std::fs::write(&p, &stripped).unwrap();
        let fo = e.front_options();
        let unit = front::load(&p, &fo).unwrap();
        let k = &unit.kernels[0];
        let mut left = 0;
        for_each_stmt(&k.body, &mut |s| {
            left += matches!(s.kind, StmtKind::Barrier(..)) as usize
        });
        assert_eq!(left, 0, "{}: stripping left barriers:\n{stripped}", e.path);
        assert!(!check(k, &NamedOptions::default()).races.is_empty(), "{}", e.path);
        // `fix_file` verifies the patched text before returning it.
        let f = fix_file(&p, &fo, &fix_opts(NamedSettings::default(), false)).unwrap();
        let kf = &f.kernels[0];
        assert_eq!(kf.status, "fixed", "{}: {:?}", e.path, kf.reasons);
        let patched = f.patched.as_deref().unwrap();
        verify_text(e, patched);
        let (_, orig) = named::existing_cost(&load(e), &SynthOptions::default());
        assert!(
            kf.cost <= orig + 1e-9,
            "{}: cost {} above the original's {orig}",
            e.path,
            kf.cost
        );
    }
}

/// A producer that reuses one named barrier every iteration without back-pressure (unsafe
/// recycling, or the deadlock of the schedule it allows) is repaired by inserting an
/// arrive/sync pair on a new ID: the manifest's kernels whose check finds such a defect and
/// whose fix is "fixed" get exactly that, the author's barrier lines survive unchanged, and the
/// patched text verifies.
#[test]
fn recycling_producers_get_back_pressure_by_insertion() {
    let es = entries(|e| {
        e.group == "named"
            && matches!(e.check.outcome.as_str(), "unsafe-recycling" | "deadlock")
            && e.fix.as_ref().is_some_and(|f| f.outcome == "fixed")
    });
    assert!(es.len() >= 2, "{}", es.len());
    for e in &es {
        let k = load(e);
        let s = named::synthesize(&k, &SynthOptions::default());
        let NamedOutcome::Fixed { barriers, .. } = &s.outcome else {
            panic!("{}: {:?}", e.path, s.outcome);
        };
        let used = named::used_ids(&k);
        let mut kinds: Vec<&str> = barriers
            .iter()
            .map(|b| match b.kind {
                NamedKind::Arrive { id, .. } | NamedKind::Sync { id, .. } if used.contains(&id) => {
                    panic!("{}: reuses the kernel's own ID {id}", e.path)
                }
                NamedKind::Arrive { .. } => "arrive",
                NamedKind::Sync { .. } => "sync",
                NamedKind::SyncThreads => "syncthreads",
            })
            .collect();
        kinds.sort();
        assert_eq!(kinds, ["arrive", "sync"], "{}", e.path);
        let src = std::fs::read_to_string(e.file(Path::new("corpus"))).unwrap();
        let fixed = fix_file(&e.file(Path::new("corpus")), &e.front_options(), &FixOptions::default()).unwrap();
        let patched = fixed.patched.expect("written");
        let after: Vec<&str> = patched.lines().map(str::trim).collect();
        for line in src.lines().filter(|l| l.contains("bar.")) {
            assert!(after.contains(&line.trim()), "{}: `{line}` changed", e.path);
        }
        verify_text(e, &patched);
    }
}
