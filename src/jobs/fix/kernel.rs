//! Fixing each kernel of a file: named synthesis for kernels that use named barriers,
//! `--minimize`, block-wide synthesis, and the named fallback where block-wide barriers would
//! diverge.

use super::describe::{annotation, describe_remaining};
use super::entry::{attribute, barrier_json, kernel_fix};
use super::mbarrier::Relower;
use super::named::{named_fallback, named_fix};
use super::options::{FixOptions, Strategy};
use crate::emit::{BarrierText, Insertion};
use crate::front::SourceUnit;
use crate::output::fixes::{BarrierJson, KernelFix, MinimizedJson, StatsJson};
use crate::synth::block::{self, Minimized, Outcome, Placed, Synthesis, Unfixable};
use crate::vocab::filter::Filter;
use crate::vocab::texts::Texts;
use autosync_oracle::ir::{BarrierHelper, Kernel, Span};
use autosync_oracle::report::{Race, Report};
use autosync_oracle::tree::LabelTree;
use std::time::Instant;

/// What the kernels of a file contribute to its fix.
pub(super) struct KernelFixes {
    /// The report entry of each kernel.
    pub kernels: Vec<KernelFix>,
    /// The insertions, each with the index of its kernel.
    pub inserts: Vec<(usize, Insertion)>,
    /// The author's barrier statements to delete (`--minimize`).
    pub removals: Vec<Span>,
    /// Whether every kernel is fixed (partially, for block synthesis) or clean; else nothing
    /// is written.
    pub all_ok: bool,
    /// Kernels fixed by the named fallback, with block synthesis' reasons: `check` judges them
    /// with the SDV checker unless the fix adds named barriers.
    pub fallback: Vec<(usize, Vec<String>)>,
    /// Kernels fixed as far as barriers can: their remaining races are all unfixable.
    pub partial: Vec<usize>,
}

impl KernelFixes {
    /// Records kernel `ki`'s entry and insertions; `ok`: whether its outcome lets the file be written.
    fn push(&mut self, ki: usize, kf: KernelFix, ins: Vec<Insertion>, ok: bool) {
        self.all_ok &= ok;
        self.inserts.extend(ins.into_iter().map(|i| (ki, i)));
        self.kernels.push(kf);
    }
}

/// Fixes every kernel of `unit` under `opts`, whose synthesis options carry the file's
/// suppressions `sup`; `rl` lowers candidate texts again (mbarrier synthesis).
pub(super) fn fix_kernels(unit: &SourceUnit, opts: &FixOptions, sup: &dyn Filter, rl: &Relower) -> KernelFixes {
    let tx = Texts { texts: &unit.texts };
    let mut out = KernelFixes {
        kernels: Vec::new(),
        inserts: Vec::new(),
        removals: Vec::new(),
        all_ok: true,
        fallback: Vec::new(),
        partial: Vec::new(),
    };
    for (ki, k) in unit.kernels.iter().enumerate() {
        let job = Job {
            tx: &tx,
            k,
            helpers: &unit.helpers[ki],
            opts,
        };
        if let Some(d) = autosync_oracle::traps::always_traps(k) {
            // Barriers cannot make a kernel that never completes correct.
            out.push(ki, always_traps(k, d), vec![], false);
            continue;
        }
        if autosync_oracle::tree::uses_named_barriers(k) {
            // The block-wide encoding cannot reason about named barriers: only named synthesis.
            let (kf, ins) = named_fix(&tx, k, job.helpers, opts, None, Some((rl, ki)));
            let ok = matches!(kf.status, "fixed" | "clean");
            out.push(ki, kf, ins, ok);
            continue;
        }
        // A suppressed race may be real; never let --minimize drop an author's barrier that a
        // suppression might be hiding the need for.
        if opts.minimize && opts.strategy == Strategy::Maxsat && !sup.may_apply_to(k) {
            let t0 = Instant::now();
            if let Some(m) = block::minimize(k, &opts.synth) {
                let (kf, ins, removals) = job.minimized(&m, t0);
                out.removals.extend(removals);
                out.push(ki, kf, ins, true);
                continue;
            }
        }
        let (kf, ins, route) = job.synthesized(sup);
        match route {
            Route::Block => {}
            Route::NamedFallback(reasons) => out.fallback.push((ki, reasons)),
            Route::Partial => out.partial.push(ki),
        }
        let ok = matches!(kf.status, "fixed" | "clean" | "partial");
        out.push(ki, kf, ins, ok);
    }
    out
}

/// The entry of a kernel some thread of which traps on every path (`d`): unfixable, with the
/// defect as `check` reports it.
fn always_traps(k: &Kernel, d: autosync_oracle::report::SyncDefect) -> KernelFix {
    let at = d.spans.first().map(|&s| k.loc(s)).unwrap_or_default();
    let reason = format!("{at}: {}", crate::vocab::defects::sync_message(&d.kind));
    let initial = Report {
        sync_defects: vec![d],
        ..Report::default()
    };
    KernelFix {
        status: "unfixable",
        reasons: vec![reason],
        ..kernel_fix(k, &Default::default(), &initial, &Report::default())
    }
}

/// How block synthesis' outcome was turned into a kernel's fix, as far as the file's
/// re-verification must know.
enum Route {
    /// Block-wide barriers (or none) for every race.
    Block,
    /// Named barriers, with block synthesis' reasons for not fixing the kernel.
    NamedFallback(Vec<String>),
    /// Block-wide barriers for the races they can order; the rest remain.
    Partial,
}

/// One kernel to fix, with what fixing it reads.
struct Job<'a> {
    tx: &'a Texts<'a>,
    k: &'a Kernel,
    /// The file's barrier helpers for this kernel (named barriers are written through them).
    helpers: &'a [BarrierHelper],
    opts: &'a FixOptions,
}

impl Job<'_> {
    /// The entry, insertions and removals of a `--minimize` plan found since `t0`.
    fn minimized(&self, m: &Minimized, t0: Instant) -> (KernelFix, Vec<Insertion>, Vec<Span>) {
        let k = self.k;
        let tree = LabelTree::new(k);
        let removals = m.remove.iter().map(|l| tree.get(*l).span).collect();
        let inserts = m
            .insert
            .iter()
            .map(|b| Insertion {
                pos: b.pos,
                text: BarrierText::SyncThreads,
                comment: None,
            })
            .collect();
        let kf = KernelFix {
            kernel: k.name.clone(),
            status: "fixed",
            barriers: m
                .insert
                .iter()
                .map(|b| barrier_json(k, b.pos, "__syncthreads();", b.cost, &[]))
                .collect(),
            cost: m.new_cost,
            reasons: vec![],
            stats: StatsJson {
                oracle_calls: m.oracle_calls,
                millis: t0.elapsed().as_secs_f64() * 1000.0,
                ..Default::default()
            },
            races: vec![],
            minimized: Some(MinimizedJson {
                removed_lines: m.remove.iter().map(|l| k.line(tree.get(*l).span)).collect(),
                old_cost: m.old_cost,
                new_cost: m.new_cost,
            }),
            notes: vec![],
            initial: None,
            suppressed: Report::default(),
        };
        (kf, inserts, removals)
    }

    /// Block synthesis (or the naive baseline) on the kernel, with named synthesis where the
    /// races left sit in warp-role branches: its entry, insertions, and how it was fixed.
    fn synthesized(&self, sup: &dyn Filter) -> (KernelFix, Vec<Insertion>, Route) {
        let (k, opts) = (self.k, self.opts);
        let syn: Synthesis = match opts.strategy {
            Strategy::Maxsat => block::synthesize(k, &opts.synth),
            Strategy::Naive => block::synthesize_naive(k, &opts.synth),
        };
        let mut base = kernel_fix(k, &syn.stats, &syn.initial, &syn.suppressed);
        if opts.minimize && sup.may_apply_to(k) {
            base.notes
                .push("--minimize keeps the kernel's own barriers: a suppression applies to it".into());
        }
        let races = &syn.initial.races;
        match syn.outcome {
            Outcome::AlreadyClean => (base, vec![], Route::Block),
            Outcome::Fixed { barriers, cost } => {
                let (kf, ins) = self.block_fix(races, &barriers, cost, base);
                (kf, ins, Route::Block)
            }
            Outcome::Partial {
                barriers,
                cost,
                unfixable,
            } => {
                // Named barriers may order what `__syncthreads` cannot; else write what block-wide
                // barriers fix and report the rest.
                let named = self
                    .named_may_order(&unfixable)
                    .then(|| named_fallback(self.tx, k, self.helpers, opts, &base, &unfixable));
                match named {
                    Some((kf, ins, reasons)) if kf.status == "fixed" => (kf, ins, Route::NamedFallback(reasons)),
                    _ => {
                        let (mut kf, ins) = self.block_fix(races, &barriers, cost, base);
                        kf.status = "partial";
                        kf.reasons = unfixable.iter().map(|u| describe_remaining(k, u)).collect();
                        (kf, ins, Route::Partial)
                    }
                }
            }
            Outcome::Unfixable(why) if self.named_may_order(&why) => {
                // Races inside warp-role branches: sub-block barriers or producer/consumer
                // channels may order them where `__syncthreads` would diverge.
                let (kf, ins, reasons) = named_fallback(self.tx, k, self.helpers, opts, &base, &why);
                let route = if kf.status == "fixed" {
                    Route::NamedFallback(reasons)
                } else {
                    Route::Block
                };
                (kf, ins, route)
            }
            Outcome::Unfixable(why) => {
                let kf = KernelFix {
                    status: "unfixable",
                    reasons: why.iter().map(|u| describe_remaining(k, u)).collect(),
                    ..base
                };
                (kf, vec![], Route::Block)
            }
            Outcome::Inconclusive(msg) => {
                let kf = KernelFix {
                    status: "inconclusive",
                    reasons: vec![msg],
                    ..base
                };
                (kf, vec![], Route::Block)
            }
        }
    }

    /// The entry and insertions of a block-wide placement (`races`: the input's races).
    fn block_fix(
        &self,
        races: &[Race],
        barriers: &[Placed],
        cost: f64,
        base: KernelFix,
    ) -> (KernelFix, Vec<Insertion>) {
        let k = self.k;
        let mut records: Vec<BarrierJson> = barriers
            .iter()
            .map(|b| barrier_json(k, b.pos, "__syncthreads();", b.cost, &b.covers))
            .collect();
        attribute(k, races, &mut records);
        let inserts: Vec<Insertion> = barriers
            .iter()
            .zip(&records)
            .map(|(b, r)| Insertion {
                pos: b.pos,
                text: BarrierText::SyncThreads,
                comment: self.opts.annotate.then(|| annotation(self.tx, k, races, r, "orders")),
            })
            .collect();
        let kf = KernelFix {
            status: "fixed",
            barriers: records,
            cost,
            ..base
        };
        (kf, inserts)
    }

    /// Whether named synthesis may order what block-wide barriers cannot: block synthesis
    /// failed only where a block-wide barrier would diverge, and the block size is known.
    fn named_may_order(&self, why: &[Unfixable]) -> bool {
        self.opts.strategy == Strategy::Maxsat && only_role_divergence(why) && self.k.launch.block_dim.is_some()
    }
}

/// Whether block synthesis failed only because races sit where a block-wide barrier would diverge.
fn only_role_divergence(why: &[Unfixable]) -> bool {
    why.iter()
        .all(|u| matches!(u, Unfixable::DivergentRegion(_) | Unfixable::NoSourcePosition(_)))
}
