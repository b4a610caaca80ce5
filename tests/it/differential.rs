//! Differential tests on the corpus: the SDV oracle reports every race the brute-force executor
//! finds (zero misses), and the SDV and named-barrier checkers agree on `__syncthreads` kernels
//! with concrete parameters. Both are corpus sweeps: an evenly spread share of the manifest on
//! the merge gate, all of it with `AUTOSYNC_FULL_SWEEPS=1`.

use autosync::front;
use autosync_devtools::manifest::{self, Entry};
use autosync_devtools::sweep;
use autosync_oracle::exec::{execute, ExecConfig, ExecError};
use autosync_oracle::ir::{ArrayId, Kernel, Label};
use autosync_oracle::report::{RaceScope, Report};
use autosync_oracle::tree::uses_named_barriers;
use autosync_oracle::{named, sdv};
use std::collections::BTreeSet;
use std::path::Path;

type Pair = (Label, Label, ArrayId, bool);

fn norm(a: Label, b: Label, arr: ArrayId, inter: bool) -> Pair {
    (a.min(b), a.max(b), arr, inter)
}

/// Every pair the report names: its races and its benign races (warnings).
fn oracle_pairs(r: &Report) -> BTreeSet<Pair> {
    r.races
        .iter()
        .chain(&r.benign)
        .map(|x| norm(x.first.label, x.second.label, x.array, x.scope == RaceScope::InterBlock))
        .collect()
}

/// The pairs the report calls harmful.
fn harmful_pairs(r: &Report) -> BTreeSet<Pair> {
    r.races
        .iter()
        .map(|x| norm(x.first.label, x.second.label, x.array, x.scope == RaceScope::InterBlock))
        .collect()
}

fn load(e: &Entry) -> Kernel {
    let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).unwrap();
    unit.kernels.into_iter().next().unwrap()
}

/// The manifest's kernels these corpus sweeps compare: an evenly spread share on the merge
/// gate, all of them with `AUTOSYNC_FULL_SWEEPS=1` (`common::sweep`).
fn sampled(m: &manifest::Manifest) -> impl Iterator<Item = &Entry> {
    sweep::sample(&m.kernels, 3)
}

#[test]
fn sdv_oracle_finds_every_race_the_executor_finds() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let mut compared = 0;
    let mut races_seen = 0;
    let mut misses = Vec::new();
    for e in sampled(&m) {
        let k = load(e);
        if uses_named_barriers(&k) {
            continue;
        }
        let Some(mut cfg) = ExecConfig::from_launch(&k.launch) else {
            continue;
        };
        let mut seen = BTreeSet::new();
        // Races the executor saw with stores of different values.
        let mut seen_harmful = BTreeSet::new();
        let mut ran = false;
        // Several seeds: memory contents can decide data-dependent paths.
        for seed in 0..3 {
            cfg.seed = seed;
            match execute(&k, &cfg) {
                Ok(rep) => {
                    ran = true;
                    let pair = |r: &autosync_oracle::exec::ExecRace| norm(r.first, r.second, r.array, r.inter_block);
                    seen.extend(rep.races.iter().map(pair));
                    seen_harmful.extend(rep.races.difference(&rep.benign).map(pair));
                }
                Err(ExecError::MissingParam(_)) => break,
                Err(err) => panic!("{}: executor failed: {err}", e.path),
            }
        }
        if !ran {
            continue;
        }
        compared += 1;
        races_seen += seen.len();
        let r = sdv::check(&k, &sdv::SdvOptions::default());
        let found = oracle_pairs(&r);
        for p in seen.difference(&found) {
            misses.push(format!("{}: executor race {:?} not reported by the oracle", e.path, p));
        }
        // A race the executor saw storing different values is never called benign.
        for p in seen_harmful.difference(&harmful_pairs(&r)) {
            misses.push(format!("{}: executor race {:?} reported as benign", e.path, p));
        }
    }
    let least = if sweep::full() { 25 } else { 6 };
    assert!(compared >= least, "only {compared} kernels compared");
    assert!(races_seen > 20, "executor found only {races_seen} races");
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn sdv_and_named_checkers_agree_on_syncthreads_kernels() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).unwrap();
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for e in sampled(&m) {
        let k = load(e);
        // Kernels with documented SDV imprecision are exactly where the two must differ; the
        // two must agree on concrete launches (DESIGN.md), so every scalar parameter needs a value.
        let symbolic = k.vars.iter().any(|v| {
            v.kind == autosync_oracle::ir::VarKind::Param && v.ty.is_int() && !k.launch.params.contains_key(&v.name)
        });
        if uses_named_barriers(&k) || k.launch.block_dim.is_none() || !e.check.imprecise.is_empty() || symbolic {
            continue;
        }
        let n = named::check(
            &k,
            &named::NamedOptions {
                timeout_ms: 1000,
                ..Default::default()
            },
        );
        if !n.inconclusive.is_empty() {
            continue;
        }
        let s = sdv::check(
            &k,
            &sdv::SdvOptions {
                check_inter_block: false,
                ..Default::default()
            },
        );
        if !s.inconclusive.is_empty() || s.races.iter().any(|r| r.assumed) || n.races.iter().any(|r| r.assumed) {
            continue;
        }
        compared += 1;
        let (sp, np) = (oracle_pairs(&s), oracle_pairs(&n));
        // A block-wide barrier some warps skip is divergence for SDV and a hang for the named checker.
        let s_bad = !s.divergences.is_empty();
        let n_bad = !n.divergences.is_empty() || !n.sync_defects.is_empty();
        // Where the named checker is documented as less precise, it must still report every
        // pair the SDV checker does.
        let pairs_differ = match &e.check.named_imprecise {
            Some(_) => !sp.is_subset(&np),
            None => sp != np,
        };
        if pairs_differ || s_bad != n_bad {
            disagreements.push(format!(
                "{}: sdv {:?} / named {:?}; divergences {} / {}",
                e.path,
                sp,
                np,
                s.divergences.len(),
                n.divergences.len()
            ));
        }
    }
    let least = if sweep::full() { 10 } else { 3 };
    assert!(compared >= least, "only {compared} kernels compared");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
