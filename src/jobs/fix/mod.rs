//! `autosync fix`: synthesize, emit, re-verify the patched text, and write it (or show it).
//!
//! Nothing is written unless every kernel of the file was fixed or already clean, and the
//! patched file, lowered again from text, verifies with the oracle.

use crate::emit::{self, BarrierText, Insertion};
use crate::front::{self, FrontError, FrontOptions};
use crate::output::fixes::{BarrierJson, KernelFix, MinimizedJson, NamedInfo, StatsJson};
use crate::synth::block::{self, Outcome, Placed, Synthesis, Unfixable};
use crate::synth::named::{self, NamedKind, NamedOutcome};
use crate::synth::space::SynthOptions;
use crate::vocab::filter::{Filter, FilterFor, NoFilter};
use crate::vocab::texts::Texts;
use autosync_oracle::ir::{BarrierHelper, HelperKind, Kernel};
use autosync_oracle::report::{Race, Report};
use autosync_oracle::tree::LabelTree;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which synthesis strategy to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Strategy {
    /// Weighted MaxSAT over the label tree, refined by the oracle.
    Maxsat,
    /// The AutoSync paper's baseline: barriers everywhere, then remove one at a time.
    Naive,
}

/// Options of `fix`.
#[derive(Clone, Debug)]
pub struct FixOptions {
    /// Synthesis options.
    pub synth: SynthOptions,
    /// Strategy.
    pub strategy: Strategy,
    /// Add a trailing comment naming the races each barrier removes.
    pub annotate: bool,
    /// Also propose removing the author's barriers when a verified cheaper placement exists.
    pub minimize: bool,
    /// The file's suppressions, built from its texts (none when unset).
    pub suppress: Option<FilterFor>,
}

/// `autosync fix` with no flags (see `workflow::fix_options`), except that there is no
/// wall-clock kernel budget (the CLI's `--kernel-timeout 60`): `SynthOptions::default()` leaves
/// it unset so library callers and tests get results that do not depend on machine load.
impl Default for FixOptions {
    fn default() -> Self {
        FixOptions {
            synth: SynthOptions::default(),
            strategy: Strategy::Maxsat,
            annotate: false,
            minimize: false,
            suppress: None,
        }
    }
}

/// A barrier ordering the races `covers` (indexes into the initial report's races), before
/// its lines are known.
fn barrier_json(
    k: &Kernel,
    pos: autosync_oracle::tree::Position,
    text: &str,
    cost: f64,
    covers: &[usize],
) -> BarrierJson {
    BarrierJson {
        at: position_offset(k, pos),
        text: text.to_string(),
        cost,
        covers_races: covers.to_vec(),
        ..Default::default()
    }
}

/// Splits each barrier's races into those it alone orders (`covers`) and those other
/// barriers order with it (`shares`), as deduplicated line pairs.
fn attribute(k: &Kernel, races: &[Race], barriers: &mut [BarrierJson]) {
    let mut count = vec![0usize; races.len()];
    for b in barriers.iter() {
        for &i in &b.covers_races {
            if let Some(c) = count.get_mut(i) {
                *c += 1;
            }
        }
    }
    for b in barriers.iter_mut() {
        let (mut alone, mut shared) = (Vec::new(), Vec::new());
        for &i in &b.covers_races {
            let Some(r) = races.get(i) else { continue };
            let pair = race_pair(k, r);
            let list = if count[i] == 1 { &mut alone } else { &mut shared };
            if !list.contains(&pair) {
                list.push(pair);
            }
        }
        b.covers = alone;
        b.shares = shared;
    }
}

/// What happened to one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileFix {
    /// The path.
    pub file: String,
    /// Per kernel.
    pub kernels: Vec<KernelFix>,
    /// Whether the file's text changes.
    pub changed: bool,
    /// The unified diff (empty when unchanged).
    pub diff: String,
    /// The patched text (when changed).
    #[serde(skip)]
    pub patched: Option<String>,
    /// The text as read (to detect changes on disk before writing).
    #[serde(skip)]
    pub original: String,
    /// The lowered input (texts and kernels, to locate what the reports name).
    #[serde(skip)]
    pub unit: Option<front::SourceUnit>,
}

/// Why a file could not be processed.
#[derive(Debug)]
pub enum FixError {
    /// Reading or lowering failed.
    Front(FrontError),
    /// Emission failed.
    Emit(String),
    /// The patched text did not verify (a bug; nothing is written).
    Verification(String),
}

fn race_pair(k: &Kernel, r: &Race) -> String {
    format!("{}↔{}", k.line(r.first.span), k.line(r.second.span))
}

/// A "clean" result carrying what every synthesis outcome reports: its statistics, the
/// input's races and the checker's report on the input. Outcomes override the rest.
fn kernel_fix(k: &Kernel, stats: &crate::synth::space::SynthStats, initial: &Report, suppressed: &Report) -> KernelFix {
    KernelFix {
        kernel: k.name.clone(),
        status: "clean",
        barriers: vec![],
        cost: 0.0,
        reasons: vec![],
        stats: StatsJson {
            oracle_calls: stats.oracle_calls,
            maxsat_calls: stats.maxsat_calls,
            rounds: stats.rounds,
            millis: stats.time.as_secs_f64() * 1000.0,
        },
        races: initial.races.iter().map(|r| race_pair(k, r)).collect(),
        minimized: None,
        notes: vec![],
        initial: Some(initial.clone()),
        suppressed: suppressed.clone(),
    }
}

/// Synthesizes barriers for every kernel of a file and prepares the patched text.
pub fn fix_file(path: &Path, front_opts: &FrontOptions, opts: &FixOptions) -> Result<FileFix, FixError> {
    let unit = front::load(path, front_opts).map_err(FixError::Front)?;
    fix_unit(path, unit, front_opts, opts)
}

/// [`fix_file`] on text that is not read from `path` (standard input); `path` names it in
/// messages and anchors includes.
pub fn fix_text(path: &Path, text: &str, front_opts: &FrontOptions, opts: &FixOptions) -> Result<FileFix, FixError> {
    let unit = front::lower_text(path, text, front_opts).map_err(FixError::Front)?;
    fix_unit(path, unit, front_opts, opts)
}

/// The suppressions of a lowered file under `opts`.
pub fn suppressions(unit: &front::SourceUnit, opts: &FixOptions) -> Arc<dyn Filter> {
    match &opts.suppress {
        Some(f) => f.of(&unit.texts),
        None => Arc::new(NoFilter),
    }
}

fn fix_unit(
    path: &Path,
    unit: front::SourceUnit,
    front_opts: &FrontOptions,
    opts: &FixOptions,
) -> Result<FileFix, FixError> {
    let original = unit.texts.first().cloned().unwrap_or_default();
    let sup = suppressions(&unit, opts);
    let opts = &FixOptions {
        synth: SynthOptions {
            suppress: (!sup.is_empty()).then(|| sup.clone()),
            ..opts.synth.clone()
        },
        ..opts.clone()
    };
    let texts = unit.texts.clone();
    let tx = Texts { texts: &texts };
    let mut all_inserts: Vec<(usize, Insertion)> = Vec::new();
    let mut all_removals: Vec<autosync_oracle::ir::Span> = Vec::new();
    let mut kernels = Vec::new();
    let mut all_ok = true;
    // Kernels fixed by the named fallback, with block synthesis' reasons: `check` judges them
    // with the SDV checker unless the fix adds named barriers.
    let mut fallback: Vec<(usize, Vec<String>)> = Vec::new();
    // Kernels fixed as far as barriers can: their remaining races are all unfixable.
    let mut partial: Vec<usize> = Vec::new();
    for (ki, k) in unit.kernels.iter().enumerate() {
        if autosync_oracle::tree::uses_named_barriers(k) {
            // The block-wide encoding cannot reason about named barriers: only named synthesis.
            let (kf, ins) = named_fix(&tx, k, &unit.helpers[ki], opts, None);
            all_ok &= matches!(kf.status, "fixed" | "clean");
            all_inserts.extend(ins.into_iter().map(|i| (ki, i)));
            kernels.push(kf);
            continue;
        }
        // A suppressed race may be real; never let --minimize drop an author's barrier that a
        // suppression might be hiding the need for.
        if opts.minimize && opts.strategy == Strategy::Maxsat && !sup.may_apply_to(k) {
            let t0 = std::time::Instant::now();
            if let Some(m) = block::minimize(k, &opts.synth) {
                let tree = LabelTree::new(k);
                for l in &m.remove {
                    all_removals.push(tree.get(*l).span);
                }
                for b in &m.insert {
                    all_inserts.push((
                        ki,
                        Insertion {
                            pos: b.pos,
                            text: BarrierText::SyncThreads,
                            comment: None,
                        },
                    ));
                }
                kernels.push(KernelFix {
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
                });
                continue;
            }
        }
        let syn: Synthesis = match opts.strategy {
            Strategy::Maxsat => block::synthesize(k, &opts.synth),
            Strategy::Naive => block::synthesize_naive(k, &opts.synth),
        };
        let mut base = kernel_fix(k, &syn.stats, &syn.initial, &syn.suppressed);
        if opts.minimize && sup.may_apply_to(k) {
            base.notes
                .push("--minimize keeps the kernel's own barriers: a suppression applies to it".into());
        }
        // The block-wide placement's report entry and insertions.
        let block_fix = |barriers: &[Placed], cost: f64, base: KernelFix| {
            let mut records: Vec<BarrierJson> = barriers
                .iter()
                .map(|b| barrier_json(k, b.pos, "__syncthreads();", b.cost, &b.covers))
                .collect();
            attribute(k, &syn.initial.races, &mut records);
            let inserts: Vec<Insertion> = barriers
                .iter()
                .zip(&records)
                .map(|(b, r)| Insertion {
                    pos: b.pos,
                    text: BarrierText::SyncThreads,
                    comment: opts
                        .annotate
                        .then(|| annotation(&tx, k, &syn.initial.races, r, "orders")),
                })
                .collect();
            let kf = KernelFix {
                status: "fixed",
                barriers: records,
                cost,
                ..base
            };
            (kf, inserts)
        };
        let role_races = |why: &[Unfixable]| {
            opts.strategy == Strategy::Maxsat && only_role_divergence(why) && k.launch.block_dim.is_some()
        };
        let (kf, ins) = match syn.outcome {
            Outcome::AlreadyClean => (base, vec![]),
            Outcome::Fixed { barriers, cost } => block_fix(&barriers, cost, base),
            Outcome::Partial {
                barriers,
                cost,
                unfixable,
            } => {
                // Named barriers may order what `__syncthreads` cannot; else write what block-wide
                // barriers fix and report the rest.
                let named =
                    role_races(&unfixable).then(|| named_fallback(&tx, k, &unit.helpers[ki], opts, &base, &unfixable));
                match named {
                    Some((kf, ins, reasons)) if kf.status == "fixed" => {
                        fallback.push((ki, reasons));
                        (kf, ins)
                    }
                    _ => {
                        let (mut kf, ins) = block_fix(&barriers, cost, base);
                        kf.status = "partial";
                        kf.reasons = unfixable.iter().map(|u| describe_remaining(k, u)).collect();
                        partial.push(ki);
                        (kf, ins)
                    }
                }
            }
            Outcome::Unfixable(why) if role_races(&why) => {
                // Races inside warp-role branches: sub-block barriers or producer/consumer
                // channels may order them where `__syncthreads` would diverge.
                let (kf, ins, reasons) = named_fallback(&tx, k, &unit.helpers[ki], opts, &base, &why);
                if kf.status == "fixed" {
                    fallback.push((ki, reasons));
                }
                (kf, ins)
            }
            Outcome::Unfixable(why) => (
                KernelFix {
                    status: "unfixable",
                    reasons: why.iter().map(|u| describe_remaining(k, u)).collect(),
                    ..base
                },
                vec![],
            ),
            Outcome::Inconclusive(msg) => (
                KernelFix {
                    status: "inconclusive",
                    reasons: vec![msg],
                    ..base
                },
                vec![],
            ),
        };
        all_ok &= matches!(kf.status, "fixed" | "clean" | "partial");
        all_inserts.extend(ins.into_iter().map(|i| (ki, i)));
        kernels.push(kf);
    }
    let mut result = FileFix {
        file: path.display().to_string(),
        kernels,
        changed: false,
        diff: String::new(),
        patched: None,
        original: original.clone(),
        unit: None,
    };
    if !all_ok || (all_inserts.is_empty() && all_removals.is_empty()) {
        result.unit = Some(unit);
        return Ok(result);
    }
    // One plan per source function: kernels occupy disjoint text, except the instantiations
    // of one kernel template, whose insertions go into one plan of the first of them (a
    // barrier written into a template body applies to every instantiation).
    let mut edits: Vec<emit::Edit> = Vec::new();
    let mut planned: Vec<usize> = Vec::new();
    for (ki, k) in unit.kernels.iter().enumerate() {
        if planned.contains(&ki) {
            continue;
        }
        let group: Vec<usize> = (ki..unit.kernels.len())
            .filter(|&j| unit.kernels[j].span == k.span)
            .collect();
        planned.extend(&group);
        let mut ins: Vec<Insertion> = Vec::new();
        let mut separate: Vec<(usize, Insertion)> = Vec::new();
        for (i, x) in all_inserts.iter().filter(|(i, _)| group.contains(i)) {
            match same_position(&unit.kernels[*i], k, x.pos) {
                Some(pos) => {
                    let x = Insertion { pos, ..x.clone() };
                    if !ins.iter().any(|y| y.pos == x.pos && y.text == x.text) {
                        ins.push(x);
                    }
                }
                None => separate.push((*i, x.clone())),
            }
        }
        if !ins.is_empty() {
            let fix = emit::plan(k, &original, &ins).map_err(|e| FixError::Emit(e.to_string()))?;
            edits.extend(fix.edits);
        }
        // A position only one instantiation has (a discarded `if constexpr` branch): its own
        // plan; identical edits merge below, and the patched text is verified for all.
        for (i, x) in separate {
            let fix = emit::plan(&unit.kernels[i], &original, &[x]).map_err(|e| FixError::Emit(e.to_string()))?;
            edits.extend(fix.edits);
        }
    }
    edits.dedup();
    for span in all_removals {
        edits.push(emit::removal(&original, span).map_err(|e| FixError::Emit(e.to_string()))?);
    }
    // Insertions before deletions at the same offset.
    edits.sort_by_key(|e| (e.offset, e.delete));
    let fix = emit::Fix { edits };
    let patched = emit::apply(&original, &fix);
    if let Err((ki, e)) = verify_patched(path, &patched, front_opts, opts, &partial) {
        match fallback.iter().find(|(i, _)| Some(*i) == ki) {
            Some((i, reasons)) => {
                // The named checker verified the placement; the SDV checker, which `check` uses
                // for a kernel without named barriers, does not. Report what `check` will say.
                let kf = &mut result.kernels[*i];
                kf.status = "unfixable";
                kf.barriers.clear();
                kf.cost = 0.0;
                kf.reasons = reasons.clone();
                kf.notes.push(
                    "named synthesis found a placement the named-barrier checker verifies, but the SDV checker \
                     (what `autosync check` uses for kernels without named barriers) still reports races in it, \
                     under conditions on values it cannot rule out"
                        .into(),
                );
                result.unit = Some(unit);
                return Ok(result);
            }
            None => return Err(e),
        }
    }
    fill_lines(&mut result, &patched, &original);
    result.changed = patched != original;
    result.diff = emit::unified_diff(path, &original, &patched);
    result.patched = Some(patched);
    result.unit = Some(unit);
    Ok(result)
}

/// The position of `to` at the same place of the source as `pos` of `from` (instantiations of
/// one kernel template share their statements' spans).
fn same_position(
    from: &Kernel,
    to: &Kernel,
    pos: autosync_oracle::tree::Position,
) -> Option<autosync_oracle::tree::Position> {
    use autosync_oracle::tree::Position;
    if std::ptr::eq(from, to) {
        return Some(pos);
    }
    let span = LabelTree::new(from).get(pos.label()).span;
    let tree = LabelTree::new(to);
    autosync_oracle::tree::candidate_positions(to)
        .into_iter()
        .rev()
        .filter(|p| std::mem::discriminant(p) == std::mem::discriminant(&pos))
        .find(|p| tree.get(p.label()).span == span)
        .map(|p| match p {
            Position::After(l) => Position::After(l),
            Position::BlockStart(l) => Position::BlockStart(l),
        })
}

/// Named-barrier synthesis for a kernel whose races block-wide barriers cannot all order (they
/// sit in warp-role branches): its report entry, insertions, and block synthesis' reasons.
fn named_fallback(
    tx: &Texts,
    k: &Kernel,
    helpers: &[BarrierHelper],
    opts: &FixOptions,
    base: &KernelFix,
    why: &[Unfixable],
) -> (KernelFix, Vec<Insertion>, Vec<String>) {
    let block_reasons: Vec<String> = why.iter().map(|u| describe_remaining(k, u)).collect();
    let (mut kf, ins) = named_fix(tx, k, helpers, opts, Some(block_reasons.clone()));
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

/// Whether block synthesis failed only because races sit where a block-wide barrier would diverge.
fn only_role_divergence(why: &[Unfixable]) -> bool {
    why.iter()
        .all(|u| matches!(u, Unfixable::DivergentRegion(_) | Unfixable::NoSourcePosition(_)))
}

/// Runs named-barrier synthesis on one kernel: its report entry and the insertions to write.
/// `helpers` are the file's barrier helpers (inserted barriers are written through them);
/// `block_reasons` are the block-wide synthesis' reasons, kept when named synthesis fails too.
fn named_fix(
    tx: &Texts,
    k: &Kernel,
    helpers: &[BarrierHelper],
    opts: &FixOptions,
    block_reasons: Option<Vec<String>>,
) -> (KernelFix, Vec<Insertion>) {
    let syn = named::synthesize(k, &opts.synth);
    let emission = named::style::emission_for(k, helpers, &opts.synth.named);
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
        }
        NamedOutcome::Inconclusive(msg) => {
            kf.status = "inconclusive";
            kf.reasons = vec![msg];
        }
    }
    (kf, inserts)
}

/// What a named barrier does, for its `--annotate` comment.
fn named_what(b: &named::NamedPlaced) -> String {
    let ids = b.ids();
    let ids = match (ids.first(), ids.last()) {
        (Some(a), Some(z)) if a != z => format!("s {a}-{z}"),
        (Some(a), _) => format!(" {a}"),
        _ => String::new(),
    };
    match b.kind {
        NamedKind::SyncThreads => "block barrier orders".to_string(),
        _ if b.channel && ids.starts_with('s') => format!("channel{ids} order"),
        _ if b.channel => format!("channel{ids} orders"),
        _ => format!("sub-block barrier{ids} orders"),
    }
}

/// The byte offset in the original text where a barrier at `pos` goes (orders barriers).
fn position_offset(k: &Kernel, pos: autosync_oracle::tree::Position) -> u32 {
    let tree = LabelTree::new(k);
    let info = tree.get(pos.label());
    match pos {
        autosync_oracle::tree::Position::BlockStart(_) => info.span.lo,
        _ => info.span.hi,
    }
}

/// Finds the line of each inserted barrier in the patched text: the inserted barrier lines in
/// text order, matched to the barriers ordered by where they go; and the original line each is
/// inserted before.
fn fill_lines(result: &mut FileFix, patched: &str, original: &str) {
    let diff = similar::TextDiff::from_lines(original, patched);
    // Barriers written through the kernel's own helpers carry none of the keywords below.
    let barrier_texts: Vec<String> = result
        .kernels
        .iter()
        .flat_map(|k| k.barriers.iter().map(|b| b.text.clone()))
        .collect();
    let mut inserted: Vec<(u32, u32)> = Vec::new();
    let mut next_old = 1u32;
    for change in diff.iter_all_changes() {
        if let Some(o) = change.old_index() {
            next_old = o as u32 + 2;
        }
        if change.tag() != similar::ChangeTag::Insert {
            continue;
        }
        let (Some(i), v) = (change.new_index(), change.value()) else {
            continue;
        };
        let own = |t: &str| !t.is_empty() && v.contains(t.trim_end_matches(';'));
        if v.contains("__syncthreads")
            || v.contains("bar.")
            || v.contains("NamedBarrier::")
            || barrier_texts.iter().any(|t| own(t))
        {
            inserted.push((i as u32 + 1, next_old));
        }
    }
    // Instantiations of one kernel template insert the same barrier once: one line for all.
    let mut places: Vec<(u32, String)> = result
        .kernels
        .iter()
        .flat_map(|k| k.barriers.iter().map(|b| (b.at, b.text.clone())))
        .collect();
    places.sort();
    places.dedup();
    for ((at, text), (line, before)) in places.into_iter().zip(inserted) {
        for b in result.kernels.iter_mut().flat_map(|k| k.barriers.iter_mut()) {
            if b.at == at && b.text == text {
                b.line = line;
                b.original_line = before;
            }
        }
    }
}

/// Lowers the patched text again and checks it as `check` would: emission must have put every
/// barrier where the IR said, and the result must be race-free. An error names the index of the
/// kernel that failed, if one did.
fn verify_patched(
    path: &Path,
    patched: &str,
    front_opts: &FrontOptions,
    opts: &FixOptions,
    partial: &[usize],
) -> Result<(), (Option<usize>, FixError)> {
    let unit = front::lower_text(path, patched, front_opts).map_err(|e| {
        (
            None,
            FixError::Verification(format!("the patched file does not lower: {}", e.message)),
        )
    })?;
    // The suppressions as the patched text has them (its lines moved).
    let sup = suppressions(&unit, opts);
    for (ki, k) in unit.kernels.iter().enumerate() {
        let fail = |e: FixError| (Some(ki), e);
        let (r, _) = super::check::check_kernel_within(
            k,
            super::check::OracleChoice::Auto,
            opts.synth.timeout_ms,
            None,
            opts.synth.strict,
        );
        let r = sup.keep(k, r);
        if !r.is_clean() && r.divergences.is_empty() && r.sync_defects.is_empty() && r.races.iter().all(|x| x.assumed) {
            return Err(fail(FixError::Verification(format!(
                "kernel `{}`: the patched text could not be re-verified within the solver budget (raise --timeout)",
                k.name
            ))));
        }
        let only_unfixable = partial.contains(&ki)
            && r.divergences.is_empty()
            && r.sync_defects.is_empty()
            && r.inconclusive.is_empty()
            && r.races.iter().all(|x| !x.assumed)
            && block::all_unfixable(k, &r.races, &opts.synth);
        if !r.is_clean() && !only_unfixable {
            return Err(fail(FixError::Verification(format!(
                "kernel `{}`: the patched text does not verify ({} races)",
                k.name,
                r.races.len()
            ))));
        }
    }
    Ok(())
}

/// The `--annotate` comment of a barrier: one short line naming the arrays and races it
/// orders (those it alone orders, else those it shares).
fn annotation(tx: &Texts, k: &Kernel, races: &[Race], b: &BarrierJson, what: &str) -> String {
    let pairs = if b.covers.is_empty() { &b.shares } else { &b.covers };
    let mut arrays: Vec<String> = b
        .covers_races
        .iter()
        .filter_map(|&i| races.get(i))
        .flat_map(|r| crate::output::findings::race_names(tx, k, r))
        .collect();
    arrays.sort_unstable();
    arrays.dedup();
    let lines = if pairs.len() <= 2 {
        format!("lines {}", pairs.join(", "))
    } else {
        format!("{} races", pairs.len())
    };
    format!("autosync: {what} {} ({lines})", arrays.join(", "))
}

/// An unfixable cause in words, with the race's witness and, when the witness needs particular
/// parameter values, how to rule them out.
pub fn describe_remaining(k: &Kernel, u: &Unfixable) -> String {
    let mut s = describe_unfixable(k, u);
    if let Some(r) = u.race() {
        if let Some(w) = crate::output::findings::witness_words(r) {
            s.push_str(&format!(" ({w})"));
        }
        if let Some(h) = parameter_hint(k, r) {
            s.push_str(&format!("; {h}"));
        }
    }
    s
}

/// For a race whose witness picks values of symbolic kernel parameters: how to tell autosync
/// that no launch uses them.
fn parameter_hint(k: &Kernel, r: &Race) -> Option<String> {
    let symbolic = |n: &str| {
        k.vars
            .iter()
            .any(|v| v.kind == autosync_oracle::ir::VarKind::Param && v.name == n)
            && !k.launch.params.contains_key(n)
    };
    let params: Vec<(&str, i64)> = r
        .witness
        .values
        .iter()
        .filter(|(n, _, _)| symbolic(n))
        .map(|(n, v, _)| (n.as_str(), *v))
        .collect();
    if params.is_empty() {
        return None;
    }
    let needs: Vec<String> = params.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let requires: Vec<String> = params
        .iter()
        .filter(|(_, v)| *v <= 0)
        .map(|(n, _)| format!("`__requires({n} > 0)`"))
        .collect();
    let state = if requires.is_empty() {
        "state what always holds with `__requires(...)` in the kernel".to_string()
    } else {
        format!("state it with {} in the kernel", requires.join(" and "))
    };
    let given: Vec<String> = params.iter().map(|(n, _)| format!("--param {n}=VALUE")).collect();
    Some(format!(
        "hint: this race needs {}; if no launch does that, {state}, or check with the values you launch with (`{}`)",
        needs.join(", "),
        given.join(" ")
    ))
}

/// A human sentence for an unfixable cause.
pub fn describe_unfixable(k: &Kernel, u: &Unfixable) -> String {
    match u {
        Unfixable::SameStatement(r) => format!(
            "{}: one statement reads and writes (or several threads write) `{}` at the same address; no barrier can go inside a statement (rewrite it with a temporary)",
            k.loc(r.first.span),
            k.array(r.array).name
        ),
        Unfixable::InterBlock(r) => format!(
            "{} and {}: threads of different blocks race on `{}`; barriers only order threads of one block",
            k.loc(r.first.span),
            k.loc(r.second.span),
            k.array(r.array).name
        ),
        Unfixable::DivergentRegion(r) => format!(
            "{} and {}: every position between these accesses is under a thread-dependent condition; a barrier there would diverge",
            k.loc(r.first.span),
            k.loc(r.second.span)
        ),
        Unfixable::NoSourcePosition(r) => format!(
            "{} and {}: no statement boundary of the kernel's own source lies between these accesses (they are in one statement or inside one called function); put a barrier in that function or split the statement",
            k.loc(r.first.span),
            k.loc(r.second.span)
        ),
        Unfixable::DivergentBarrier(l) => {
            let tree = LabelTree::new(k);
            format!("{}: an existing barrier is under a thread-dependent condition (barrier divergence)", k.loc(tree.get(*l).span))
        }
        Unfixable::NoPlacement => "no barrier placement removes every race".into(),
    }
}

/// Writes the patched text if the file on disk is still what we read.
pub fn write_back(path: &Path, f: &FileFix) -> Result<(), String> {
    write_back_with(path, f, false)
}

/// Writes the patched text if the file on disk is still what we read and is not read-only;
/// with `backup`, first saves the original as `FILE.orig` (same permissions). Either the file
/// is replaced atomically or it is left as it was.
pub fn write_back_with(path: &Path, f: &FileFix, backup: bool) -> Result<(), String> {
    let Some(patched) = &f.patched else { return Ok(()) };
    let meta =
        std::fs::metadata(path).map_err(|e| format!("{}: cannot re-read before writing: {e}", path.display()))?;
    // Replacing by rename would succeed on a read-only file; respect the user's protection.
    if meta.permissions().readonly() {
        return Err(format!("{}: the file is read-only; nothing written", path.display()));
    }
    let now = std::fs::read(path).map_err(|e| format!("{}: cannot re-read before writing: {e}", path.display()))?;
    if now != f.original.as_bytes() {
        return Err(format!(
            "{}: the file changed on disk while autosync ran; nothing written (run again)",
            path.display()
        ));
    }
    if backup {
        let mut name = path.as_os_str().to_owned();
        name.push(".orig");
        let orig = PathBuf::from(name);
        emit::write_atomic(&orig, &f.original)
            .and_then(|()| std::fs::set_permissions(&orig, meta.permissions()))
            .map_err(|e| format!("{}: cannot write the backup: {e}; nothing written", orig.display()))?;
    }
    emit::write_atomic(path, patched).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
