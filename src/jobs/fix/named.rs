//! The named-barrier path of `fix`: kernels that use named barriers, and the fallback for
//! kernels whose races block-wide barriers cannot order because they sit in warp-role branches.

use super::describe::{annotation, describe_remaining, named_what};
use super::entry::{attribute, barrier_json, kernel_fix};
use super::mbarrier::{mbarrier_fix, Relower};
use super::options::FixOptions;
use crate::emit::{BarrierText, Insertion};
use crate::output::fixes::{KernelFix, NamedInfo};
use crate::synth::block::Unfixable;
use crate::synth::named::{self, NamedKind, NamedOutcome, NamedStyle, NamedUnfixable};
use crate::synth::space::SynthOptions;
use crate::vocab::texts::Texts;
use autosync_oracle::ir::{BarrierHelper, HelperKind, Kernel};

/// Runs named-barrier synthesis on one kernel: its report entry and the insertions to write.
/// `helpers` are the file's barrier helpers (inserted barriers are written through them);
/// `block_reasons` are the block-wide synthesis' reasons, kept when named synthesis fails too.
/// With `mbar` (how to lower a patched text again, and the kernel's index in its unit), a
/// kernel left unfixable by its mbarrier protocol's defects goes on to mbarrier synthesis.
pub(super) fn named_fix(
    tx: &Texts,
    k: &Kernel,
    helpers: &[BarrierHelper],
    opts: &FixOptions,
    block_reasons: Option<Vec<String>>,
    mbar: Option<(&Relower, usize)>,
) -> (KernelFix, Vec<Insertion>) {
    let synth = cutlass_settings(tx, k, &opts.synth);
    let syn = named::synthesize(k, &synth);
    let emission = named::style::emission_for(k, helpers, &synth.named);
    let mut kf = kernel_fix(k, &syn.stats, &syn.initial, &syn.suppressed);
    let mut inserts = Vec::new();
    match syn.outcome {
        NamedOutcome::AlreadyClean => {}
        NamedOutcome::Fixed { barriers, cost } => {
            kf.status = "fixed";
            kf.cost = cost;
            let kinds: Vec<HelperKind> = barriers
                .iter()
                .filter_map(|b| match b.kind {
                    NamedKind::Sync { .. } => Some(HelperKind::Sync),
                    NamedKind::Arrive { .. } => Some(HelperKind::Arrive),
                    NamedKind::SyncThreads => None,
                })
                .collect();
            kf.notes.extend(emission.fallback_note(&kinds));
            let texts: Vec<BarrierText> = barriers
                .iter()
                .map(|b| match (b.kind, &b.guard) {
                    (NamedKind::SyncThreads, None) => BarrierText::SyncThreads,
                    _ => BarrierText::Custom(b.text_in(&emission)),
                })
                .collect();
            for (b, text) in barriers.iter().zip(&texts) {
                let mut rec = barrier_json(k, b.pos, text.text(), b.cost, &b.covers);
                rec.named = match b.kind {
                    NamedKind::SyncThreads => None,
                    NamedKind::Sync { count, .. } | NamedKind::Arrive { count, .. } => Some(NamedInfo {
                        ids: b.ids(),
                        count,
                        arrive: matches!(b.kind, NamedKind::Arrive { .. }),
                    }),
                };
                kf.barriers.push(rec);
            }
            attribute(k, &syn.initial.races, &mut kf.barriers);
            for ((b, text), rec) in barriers.iter().zip(texts).zip(&kf.barriers) {
                let comment = opts
                    .annotate
                    .then(|| annotation(tx, k, &syn.initial.races, rec, &named_what(b)));
                inserts.push(Insertion {
                    pos: b.pos,
                    text,
                    comment,
                });
            }
        }
        NamedOutcome::Unfixable(why) => {
            kf.status = "unfixable";
            kf.reasons = why.iter().map(|u| u.describe(k)).collect();
            if let Some(b) = block_reasons {
                kf.reasons.extend(b);
            }
            let protocol =
                |u: &NamedUnfixable| matches!(u, NamedUnfixable::SyncDefect(_) | NamedUnfixable::AsyncCopy(_));
            if let Some((rl, ki)) = mbar.filter(|_| why.iter().all(protocol)) {
                inserts = mbarrier_fix(rl, k, ki, opts, &mut kf);
            }
        }
        NamedOutcome::Inconclusive(msg) => {
            kf.status = "inconclusive";
            kf.reasons = vec![msg];
        }
    }
    (kf, inserts)
}

/// Named-barrier synthesis for a kernel whose races block-wide barriers cannot all order (they
/// sit in warp-role branches): its report entry, insertions, and block synthesis' reasons.
pub(super) fn named_fallback(
    tx: &Texts,
    k: &Kernel,
    helpers: &[BarrierHelper],
    opts: &FixOptions,
    base: &KernelFix,
    why: &[Unfixable],
) -> (KernelFix, Vec<Insertion>, Vec<String>) {
    let block_reasons: Vec<String> = why.iter().map(|u| describe_remaining(k, u)).collect();
    let (mut kf, ins) = named_fix(tx, k, helpers, opts, Some(block_reasons.clone()), None);
    if kf.status == "clean" {
        // `check` still reports the SDV checker's races; fixing cannot change that.
        kf.status = "unfixable";
        kf.races = base.races.clone();
        kf.initial = base.initial.clone();
        kf.suppressed = base.suppressed.clone();
        kf.reasons = block_reasons.clone();
        kf.notes.push(
            "the named-barrier checker finds none of these races (`autosync check --oracle named`): \
             they lie under conditions on values the SDV checker cannot rule out"
                .into(),
        );
    }
    kf.stats.oracle_calls += base.stats.oracle_calls;
    kf.stats.maxsat_calls += base.stats.maxsat_calls;
    kf.stats.millis += base.stats.millis;
    (kf, ins, block_reasons)
}

/// Reports a kernel the named fallback fixed as `check` will: the named checker verified the
/// placement, but the SDV checker, which `check` uses for a kernel without named barriers, does
/// not verify the patched text. `reasons` are block synthesis' reasons.
pub(super) fn unverified_by_sdv(kf: &mut KernelFix, reasons: &[String]) {
    kf.status = "unfixable";
    kf.barriers.clear();
    kf.cost = 0.0;
    kf.reasons = reasons.to_vec();
    kf.notes.push(
        "named synthesis found a placement the named-barrier checker verifies, but the SDV checker \
         (what `autosync check` uses for kernels without named barriers) still reports races in it, \
         under conditions on values it cannot rule out"
            .into(),
    );
}

/// The synthesis options for `k`: CUTLASS style when the file brings `NamedBarrier` into scope
/// (and no style is asked for); with CUTLASS's own header, only the hardware IDs its
/// NamedBarrier can name (8-15), written minus the 8 it adds.
fn cutlass_settings(tx: &Texts, k: &Kernel, synth: &SynthOptions) -> SynthOptions {
    let mut s = synth.clone();
    let text = tx.texts.get(k.span.file.0 as usize).map(String::as_str).unwrap_or("");
    if s.named.style.is_none() && named::style::file_brings_named_barrier(text) {
        s.named.style = Some(NamedStyle::Cutlass);
    }
    if named::style_for(k, &s.named) == NamedStyle::Cutlass && named::style::file_uses_real_cutlass(text) {
        s.named.cutlass_offset = named::style::CUTLASS_RESERVED;
        s.named.allowed_ids.retain(|&id| id >= named::style::CUTLASS_RESERVED);
    }
    s
}
