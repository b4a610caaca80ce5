//! Differential tests of the SDV re-check that reuses proofs (`sdv::check_with_barriers`, what
//! synthesis verifies every candidate placement with): on candidate placements of corpus
//! kernels and of generated kernels, it reports exactly what a full check of the kernel with
//! those barriers reports (races with their relations, benign races, divergences, inconclusive
//! findings), while asking fewer solver queries.
//!
//! The base kernel of each case is checked as synthesis's first call checks it (one race per
//! place pair); candidates are every block-uniform position at once and random subsets of them.
//! The uniformity synthesis derives from the first call's (as if reads settled) is compared
//! with the one computed afresh. The generated kernels are a sweep of 200 seeds, a fraction of
//! them by default (the merge gate), all with `AUTOSYNC_FULL_SWEEPS=1` (`common::sweep`); the
//! corpus kernels likewise.

use crate::common::sweep::{self, cases};
use autosync::front::{self, FrontOptions};
use autosync::synth::block::{block_uniform_positions, planning_options};
use autosync::synth::space::SynthOptions;
use autosync_devtools::gen::{generate, GenConfig};
use autosync_devtools::manifest;
use autosync_devtools::workload::without_barriers;
use autosync_oracle::ir::{ArrayId, Barrier, Kernel, Label};
use autosync_oracle::report::{IterRelation, RaceScope, Report};
use autosync_oracle::sdv::{self, SdvOptions};
use autosync_oracle::tree::{insert_barriers, uses_named_barriers, Position};
use rayon::prelude::*;
use std::path::Path;

/// A race as the comparison sees it (witnesses may differ: any model is a witness).
type RaceKey = (Label, Label, ArrayId, bool, Vec<IterRelation>, bool, bool);

/// What a report says, witnesses aside.
fn findings(r: &Report) -> (Vec<RaceKey>, Vec<RaceKey>, Vec<Label>, usize) {
    let keys = |races: &[autosync_oracle::report::Race]| {
        let mut v: Vec<RaceKey> = races
            .iter()
            .map(|x| {
                let (a, b) = (x.first.label, x.second.label);
                (
                    a,
                    b,
                    x.array,
                    x.scope == RaceScope::InterBlock,
                    x.relations.clone(),
                    x.assumed,
                    x.benign,
                )
            })
            .collect();
        v.sort();
        v
    };
    let divergences = r.divergences.iter().map(|d| d.barrier).collect();
    (keys(&r.races), keys(&r.benign), divergences, r.inconclusive.len())
}

/// Options of synthesis's calls: its first (planning) call and its candidate checks.
fn options() -> (SdvOptions, SdvOptions) {
    let quiet = SdvOptions {
        small_witnesses: false,
        ..Default::default()
    };
    (planning_options(&quiet), quiet)
}

/// A small deterministic generator for the random subsets (xorshift).
fn subsets(n: usize, seed: u64, count: usize) -> Vec<Vec<usize>> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..count)
        .map(|_| (0..n).filter(|_| next() % 3 == 0).collect())
        .collect()
}

/// Counts over the candidates of a test.
#[derive(Default)]
struct Counts {
    candidates: usize,
    /// Candidates whose re-check asked fewer solver queries than the full check.
    fewer: usize,
    queries_full: u64,
    queries_reused: u64,
}

impl Counts {
    fn add(self, o: Counts) -> Counts {
        Counts {
            candidates: self.candidates + o.candidates,
            fewer: self.fewer + o.fewer,
            queries_full: self.queries_full + o.queries_full,
            queries_reused: self.queries_reused + o.queries_reused,
        }
    }
}

/// Compares the re-check with the full check on every candidate of `k` (all positions, and
/// `random` subsets drawn from `seed`); `what` names the case in a failure.
fn compare(what: &str, k: &Kernel, seed: u64, random: usize) -> Counts {
    let (planning, quiet) = options();
    let (base, proofs) = sdv::check_proving(k, &planning);
    let mut counts = Counts::default();
    if !base.inconclusive.is_empty() {
        return counts;
    }
    let positions: Vec<Position> = block_uniform_positions(k, &SynthOptions::default())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let mut candidates = vec![(0..positions.len()).collect::<Vec<_>>()];
    candidates.extend(subsets(positions.len(), seed, random));
    for chosen in candidates {
        let at: Vec<Position> = chosen.iter().map(|&i| positions[i]).collect();
        let inserts: Vec<(Position, Barrier)> = at.iter().map(|p| (*p, Barrier::Block)).collect();
        let full = sdv::check(&insert_barriers(k, &inserts).expect("inserts").0, &quiet);
        let reused = sdv::check_with_barriers(&proofs, &at, &quiet).expect("inserts");
        assert_eq!(
            findings(&reused),
            findings(&full),
            "{what}: barriers at {at:?}\n{}",
            autosync_oracle::print::kernel(k)
        );
        counts.candidates += 1;
        counts.fewer += (reused.queries < full.queries) as usize;
        counts.queries_full += full.queries;
        counts.queries_reused += reused.queries;
    }
    counts
}

/// Every candidate's report must match; the proofs must save queries on most candidates (a
/// re-check that asked everything again would pass the comparison and save nothing).
fn check_counts(what: &str, c: &Counts) {
    eprintln!(
        "{what}: {} candidates, {} with fewer queries; queries {} (full) vs {} (reused)",
        c.candidates, c.fewer, c.queries_full, c.queries_reused
    );
    assert!(c.candidates > 0);
    assert!(
        2 * c.fewer > c.candidates,
        "{what}: the proofs saved queries on too few candidates"
    );
    assert!(c.queries_reused < c.queries_full, "{what}: the proofs saved no queries");
}

#[test]
fn reuse_reports_what_a_full_check_reports_on_corpus_placements() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let counts = m
        .kernels
        .par_iter()
        .enumerate()
        .filter(|(i, _)| sweep::keeps(*i, 0))
        .map(|(i, e)| {
            let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).expect("lowers");
            let k = &unit.kernels[0];
            if uses_named_barriers(k) {
                return Counts::default();
            }
            compare(&e.path, &without_barriers(k).unwrap_or_else(|| k.clone()), i as u64, 1)
        })
        .reduce(Counts::default, Counts::add);
    check_counts("corpus", &counts);
}

#[test]
fn reuse_reports_what_a_full_check_reports_on_generated_placements() {
    let cfg = GenConfig::default();
    let counts = (0..cases(200))
        .into_par_iter()
        .map(|seed| {
            let g = generate(seed, &cfg);
            let text = g.to_cuda();
            let path = format!("gen_{seed}.cu");
            let unit = front::lower_text(Path::new(&path), &text, &FrontOptions::default()).expect("lowers");
            // The generated barriers stay: a candidate adds to them (their votes, the reads
            // they make uniform).
            compare(&format!("seed {seed}\n{text}"), &unit.kernels[0], seed, 2)
        })
        .reduce(Counts::default, Counts::add);
    check_counts("generated", &counts);
}

/// The levels a uniformity analysis gives every statement and block of `k`.
fn levels(k: &Kernel, u: &sdv::Uniformity) -> Vec<(Label, sdv::Level, sdv::Level, Option<Label>)> {
    let mut out = Vec::new();
    autosync_oracle::tree::for_each_stmt(&k.body, &mut |s: &autosync_oracle::ir::Stmt| {
        out.push((s.label, u.level(s.label), u.level_after(s.label), u.cause(s.label)));
    });
    out
}

#[test]
fn settled_uniformity_from_the_kernels_own_is_the_fresh_one() {
    let m = manifest::load(Path::new("corpus/manifest.yaml")).expect("manifest");
    let sampled: Vec<_> = sweep::sample(&m.kernels, 1).collect();
    let reused = sampled
        .par_iter()
        .map(|e| {
            let unit = front::load(&e.file(Path::new("corpus")), &e.front_options()).expect("lowers");
            let k = &unit.kernels[0];
            let own = sdv::uniformity(k);
            let given = sdv::uniformity_if_reads_settle_given(k, &own);
            let fresh = sdv::uniformity_if_reads_settle(k);
            assert_eq!(levels(k, &given), levels(k, &fresh), "{}", e.path);
            // Whether the levels could be taken as they were (no read settles that had not).
            (levels(k, &given) == levels(k, &own)) as usize
        })
        .sum::<usize>();
    // Most kernels have no read that settles only with a barrier of synthesis's.
    assert!(2 * reused > sampled.len(), "{reused} of {}", sampled.len());
}
