//! From a checker report to the findings users read: the rules, race kinds in execution order,
//! array names as written, loops and witnesses in words, and one finding per race of an inlined
//! function however many call sites reach it.

use super::defect::{Defect, Labeled, Severity};
use crate::vocab::defects::{race_rule, sync_message, sync_rule};
use crate::vocab::filter::Filter;
use crate::vocab::rules::{BARRIER_DIVERGENCE, INCONCLUSIVE, PDL_NC_LOAD};
use crate::vocab::texts::Texts;
use autosync_oracle::ir::{AccessKind, Kernel, Label, Span, StmtKind};
use autosync_oracle::report::{Hazard, IterRelation, Race, RaceKind, RaceScope, Report, ThreadId, Witness};
use autosync_oracle::tree::{for_each_stmt, LabelTree};
use std::collections::BTreeMap;

fn access_word(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
        AccessKind::Atomic => "atomic",
    }
}

fn access_verb(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "reads",
        AccessKind::Write => "writes",
        AccessKind::Atomic => "updates atomically",
    }
}

/// In which order the two accesses of a race run, relative to text order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The first access (in text order) runs first: same iteration, or a later iteration for
    /// the second.
    Text,
    /// The second access runs in an earlier iteration than the first.
    Reversed,
    /// Both happen (within an iteration, and reversed across iterations).
    Both,
}

fn order(race: &Race) -> Order {
    let rev = race
        .relations
        .iter()
        .filter(|r| matches!(r, IterRelation::AcrossBackEdgeReversed(_)))
        .count();
    match rev {
        0 => Order::Text,
        n if n == race.relations.len() => Order::Reversed,
        _ => Order::Both,
    }
}

/// RAW/WAR/WAW in execution order (the oracle's kind is in text order).
pub fn execution_kinds(race: &Race) -> Vec<RaceKind> {
    let text = RaceKind::of(race.first.kind, race.second.kind);
    let rev = RaceKind::of(race.second.kind, race.first.kind);
    match order(race) {
        Order::Text => vec![text],
        Order::Reversed => vec![rev],
        Order::Both if text == rev => vec![text],
        Order::Both => vec![text, rev],
    }
}

/// The array as the source text names it at an access: the expression before the first `[`
/// (`sdata` in `sdata[tid]`, `p->buf` in `p->buf[i]`), when it is a plain name or member chain.
fn written_name(tx: &Texts, span: Span) -> Option<String> {
    if span.is_dummy() {
        return None;
    }
    let text = tx.texts.get(span.file.0 as usize)?;
    let s = text.get(span.lo as usize..(span.hi as usize).min(text.len()))?;
    let base = s.split('[').next()?.trim();
    let base = base.trim_start_matches(['*', '&', '(']).trim_end_matches(')').trim();
    let plain = !base.is_empty()
        && base.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && base
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '-' || c == '>' || c == ':');
    plain.then(|| base.to_string())
}

/// What the kernel's loops and call sites look like, for describing findings.
struct Shape<'k> {
    k: &'k Kernel,
    tree: LabelTree,
    /// Loop statements: label → (line, induction variable name).
    loops: BTreeMap<Label, (u32, Option<String>)>,
    /// Labels of statements written in the kernel's own body, in text (post) order.
    own: Vec<(u32, Label)>,
}

impl<'k> Shape<'k> {
    fn new(k: &'k Kernel) -> Self {
        let tree = LabelTree::new(k);
        let mut loops = BTreeMap::new();
        for_each_stmt(&k.body, &mut |s| {
            if let StmtKind::Loop(lp) = &s.kind {
                loops.insert(s.label, (k.line(s.span), lp.var.map(|v| k.var(v).name.clone())));
            }
        });
        let mut own: Vec<(u32, Label)> = tree
            .info
            .iter()
            .filter(|(_, i)| !i.is_block && in_kernel(k, i.span))
            .map(|(l, i)| (i.post, *l))
            .collect();
        own.sort();
        Shape { k, tree, loops, own }
    }

    /// `the `half` loop at line 11` for the common loop at `depth` (1 = outermost) of two labels.
    fn loop_words(&self, a: Label, b: Label, depth: u32) -> Option<String> {
        let la = self.tree.info.get(&a)?.loop_owners();
        let lb = self.tree.info.get(&b)?.loop_owners();
        let common: Vec<Label> = la
            .iter()
            .zip(&lb)
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect();
        let l = common.get(depth.checked_sub(1)? as usize)?;
        let (line, var) = self.loops.get(l)?;
        Some(match var {
            Some(v) => format!("the `{v}` loop at line {line}"),
            None => format!("the loop at line {line}"),
        })
    }

    /// The line of the kernel statement that reaches an access in an inlined function: the
    /// first statement of the kernel's own body after it in text order.
    fn call_site(&self, label: Label, span: Span) -> Option<u32> {
        if in_kernel(self.k, span) {
            return None;
        }
        let post = self.tree.info.get(&label)?.post;
        let i = self.own.partition_point(|(p, _)| *p <= post);
        let (_, l) = self.own.get(i)?;
        Some(self.k.line(self.tree.get(*l).span))
    }
}

/// Whether a span lies in the kernel's own definition (not in a called function or header).
fn in_kernel(k: &Kernel, s: Span) -> bool {
    !s.is_dummy() && s.file == k.span.file && k.span.lo <= s.lo && s.hi <= k.span.hi
}

fn labeled(tx: &Texts, k: &Kernel, span: Span, label: &str) -> Option<Labeled> {
    tx.location(k, span).map(|location| Labeled {
        location,
        label: label.to_string(),
    })
}

/// `thread 3`, `thread (1,2,0)`.
fn thread_words(t: &ThreadId) -> String {
    match t.thread {
        [x, 0, 0] => format!("thread {x}"),
        [x, y, z] => format!("thread ({x},{y},{z})"),
    }
}

fn block_words(b: [u32; 3]) -> String {
    match b {
        [x, 0, 0] => format!("block {x}"),
        [x, y, z] => format!("block ({x},{y},{z})"),
    }
}

/// The witness in words, accesses in execution order: `witness: thread 1 writes element 1 when
/// half=2, then thread 0 reads it when half=1 (block 0)`.
pub(crate) fn witness_words(race: &Race) -> Option<String> {
    let w: &Witness = &race.witness;
    let [t1, t2] = w.threads.get(..2)? else { return None };
    let same_block = t1.block == t2.block;
    let who = |t: &ThreadId| {
        if same_block {
            thread_words(t)
        } else {
            format!("{} of {}", thread_words(t), block_words(t.block))
        }
    };
    let when = |first: bool| {
        let own: Vec<String> = w
            .values
            .iter()
            .filter_map(|(n, a, b)| match b {
                Some(b) if b != a => Some(format!("{n}={}", if first { a } else { b })),
                _ => None,
            })
            .collect();
        if own.is_empty() {
            String::new()
        } else {
            format!(" when {}", own.join(", "))
        }
    };
    let element = match (w.index, w.byte_offset) {
        (Some(i), _) => format!("element {i}"),
        (None, Some(b)) => format!("byte {b}"),
        (None, None) => "the same element".into(),
    };
    let first = format!("{} {} {element}{}", who(t1), access_verb(race.first.kind), when(true));
    let second = format!("{} {} it{}", who(t2), access_verb(race.second.kind), when(false));
    let mut line = match order(race) {
        Order::Text => format!("witness: {first}, then {second}"),
        Order::Reversed => {
            let first = format!("{} {} {element}{}", who(t2), access_verb(race.second.kind), when(false));
            let second = format!("{} {} it{}", who(t1), access_verb(race.first.kind), when(true));
            format!("witness: {first}, then {second}")
        }
        Order::Both => format!("witness: {first}, and {second}"),
    };
    if same_block {
        line.push_str(&format!(" ({})", block_words(t1.block)));
    }
    let shared: Vec<String> = w
        .values
        .iter()
        .filter(|(_, a, b)| b.is_none_or(|b| b == *a))
        .map(|(n, a, _)| format!("{n}={a}"))
        .collect();
    if !shared.is_empty() {
        line.push_str(&format!("; {}", shared.join(", ")));
    }
    Some(line)
}

/// How the iteration relation reads: `, across iterations of the `half` loop at line 11`.
fn relation_words(shape: &Shape, race: &Race) -> Option<String> {
    let depth = race.relations.iter().find_map(|r| match r {
        IterRelation::AcrossBackEdge(d) | IterRelation::AcrossBackEdgeReversed(d) => Some(*d),
        _ => None,
    })?;
    let lp = shape
        .loop_words(race.first.label, race.second.label, depth)
        .unwrap_or_else(|| "a loop".into());
    let earlier = match order(race) {
        Order::Reversed => access_word(race.second.kind),
        _ => access_word(race.first.kind),
    };
    let later = match order(race) {
        Order::Reversed => access_word(race.first.kind),
        _ => access_word(race.second.kind),
    };
    Some(match order(race) {
        Order::Both => format!(
            "the accesses race within one iteration and across iterations of {lp} (the {later} in an earlier iteration than the {earlier})"
        ),
        _ => {
            let also = if race.relations.contains(&IterRelation::SameIteration) {
                "within one iteration, and "
            } else {
                ""
            };
            format!("{also}across iterations of {lp}: the {earlier} runs in an earlier iteration than the {later}")
        }
    })
}

/// The names the source uses for a race's array at its two accesses (the declared name when
/// the text shows none).
pub fn race_names(tx: &Texts, k: &Kernel, race: &Race) -> Vec<String> {
    let mut written: Vec<String> = [race.first.span, race.second.span]
        .iter()
        .filter_map(|s| written_name(tx, *s))
        .collect();
    written.dedup();
    if written.is_empty() {
        written.push(k.array(race.array).name.clone());
    }
    written
}

/// A race as a finding; `warning` for a benign race or one only overlapping layouts make,
/// reported as a warning (not under `--strict`).
fn race_defect(shape: &Shape, tx: &Texts, race: &Race, warning: bool) -> Defect {
    let k = shape.k;
    let arr = k.array(race.array).name.clone();
    let written = race_names(tx, k, race);
    let names = written
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(" and ");
    let alias = if written.contains(&arr) {
        String::new()
    } else {
        format!(" (array `{arr}`)")
    };
    let kinds: Vec<&str> = execution_kinds(race).iter().map(|x| x.short()).collect();
    let kind = match kinds.as_slice() {
        [a, b] => format!("{a} within an iteration, {b} across iterations"),
        _ => kinds.join(""),
    };
    let inter_block = race.scope == RaceScope::InterBlock;
    let mut message = if race.benign && race.kind == RaceKind::WriteAfterWrite {
        format!("benign data race ({kind}, every thread stores the same value) on {names}{alias}")
    } else if race.benign {
        format!("benign data race ({kind}, the load sees the value its own thread stored, which every racing store writes) on {names}{alias}")
    } else {
        format!("data race ({kind}) on {names}{alias}")
    };
    if inter_block {
        message.push_str(" between blocks");
        if !race.benign && race.overlap.is_empty() {
            message.push_str(" (no barrier can fix this)");
        }
    }
    if !race.overlap.is_empty() {
        let params: Vec<String> = race.overlap.iter().map(|p| format!("`{p}`")).collect();
        let verb = if params.len() == 1 { "puts" } else { "put" };
        message.push_str(&format!(
            ", only if {} {verb} two distinct elements at one address",
            params.join(", ")
        ));
    }
    if race.assumed {
        message.push_str(" (assumed: the solver could not decide)");
    }
    let (a, b) = match order(race) {
        Order::Reversed => (&race.second, &race.first),
        _ => (&race.first, &race.second),
    };
    let link = if order(race) == Order::Both { "and" } else { "then" };
    message.push_str(&format!(
        ": {} at {}, {link} {} at {}",
        access_word(a.kind),
        k.loc(a.span),
        access_word(b.kind),
        k.loc(b.span)
    ));
    let mut notes: Vec<String> = relation_words(shape, race).into_iter().collect();
    if race.store_in_flight {
        notes.push(format!(
            "a bulk store reads `{arr}` until its thread's cp.async.bulk.wait_group.read retires it; the write is not ordered after that wait"
        ));
    }
    notes.extend(witness_words(race));
    if warning && race.benign {
        notes.push("not a defect by default; `--strict` reports benign races as races".into());
    } else if warning {
        notes.push("every execution where both touch the same element is race-free: the race needs an overlapping layout (a zero stride, rows closer than their length); a warning, `--strict` reports it as a race".into());
    }
    let reached: Vec<u32> = [&race.first, &race.second]
        .iter()
        .filter_map(|x| shape.call_site(x.label, x.span))
        .collect();
    Defect {
        rule: race_rule(race).id.into(),
        severity: if race.assumed || warning {
            Severity::Warning
        } else {
            race_rule(race).severity
        },
        message,
        primary: labeled(tx, k, race.first.span, access_word(race.first.kind)),
        related: labeled(tx, k, race.second.span, access_word(race.second.kind))
            .into_iter()
            .collect(),
        race_kind: Some(kinds.join("+")),
        array: Some(arr),
        written_as: written,
        inter_block,
        witness: serde_json::to_value(&race.witness).ok(),
        notes,
        reached_from: reached,
        races: vec![],
        suppressed_by: None,
    }
}

/// Merges races that differ only in their call site (an inlined function reached from several
/// lines) into one finding each; returns the findings and, per finding, its report races.
fn group_races(shape: &Shape, tx: &Texts, races: &[Race], warning: bool) -> Vec<Defect> {
    let mut out: Vec<Defect> = Vec::new();
    let mut index: BTreeMap<(Span, Span, u32, String), usize> = BTreeMap::new();
    for (i, race) in races.iter().enumerate() {
        let mut d = race_defect(shape, tx, race, warning);
        let key = (race.first.span, race.second.span, race.array.0, d.message.clone());
        match index.get(&key) {
            Some(&j) if !d.reached_from.is_empty() => {
                out[j].races.push(i);
                out[j].reached_from.append(&mut d.reached_from);
            }
            _ => {
                d.races.push(i);
                index.insert(key, out.len());
                out.push(d);
            }
        }
    }
    for d in &mut out {
        d.reached_from.sort_unstable();
        d.reached_from.dedup();
        if !d.reached_from.is_empty() {
            let lines: Vec<String> = d.reached_from.iter().map(u32::to_string).collect();
            let s = if lines.len() == 1 { "" } else { "s" };
            d.message.push_str(&format!(
                " (in a called function, reached from line{s} {})",
                lines.join(", ")
            ));
        }
    }
    out
}

/// The findings of a checker report, in report order (races first, benign races as warnings
/// last). With `sup`, the report
/// holds suppressed findings and each is marked with what suppressed it.
pub fn defects(k: &Kernel, tx: &Texts, r: &Report, sup: Option<&dyn Filter>) -> Vec<Defect> {
    let shape = Shape::new(k);
    let mut out = group_races(&shape, tx, &r.races, false);
    for d in &r.divergences {
        let what = if d.across_blocks {
            "grid barrier under a condition that may differ between blocks (blocks that skip it hang the grid)"
        } else if d.within_warp {
            "barrier under a thread-dependent condition (lanes of one warp disagree)"
        } else {
            "barrier under a thread-dependent condition"
        };
        out.push(Defect {
            message: format!(
                "{what}: barrier at {}, condition at {}",
                k.loc(d.span),
                k.loc(d.cond_span)
            ),
            primary: labeled(tx, k, d.span, "barrier"),
            related: labeled(tx, k, d.cond_span, "non-uniform condition")
                .into_iter()
                .collect(),
            ..Defect::plain(&BARRIER_DIVERGENCE)
        });
    }
    for s in &r.sync_defects {
        let rule = sync_rule(&s.kind);
        let mut spans = s.spans.iter();
        out.push(Defect {
            message: sync_message(&s.kind),
            primary: spans.next().and_then(|sp| labeled(tx, k, *sp, "here")),
            related: spans.filter_map(|sp| labeled(tx, k, *sp, "involved")).collect(),
            notes: s.trace.clone(),
            ..Defect::plain(rule)
        });
    }
    for i in &r.inconclusive {
        out.push(Defect {
            message: format!("could not decide: {}", i.message),
            primary: labeled(tx, k, i.span, "here"),
            ..Defect::plain(&INCONCLUSIVE)
        });
    }
    if let Some(sup) = sup {
        mark_suppressed(k, r, sup, &mut out);
    }
    for h in &r.hazards {
        out.push(hazard(tx, k, h));
    }
    // Benign races and races of overlapping layouts are warnings (never suppressed: they fail
    // nothing).
    for warned in [&r.benign, &r.overlap] {
        let mut ws = group_races(&shape, tx, warned, true);
        for d in &mut ws {
            // Their report indices are into their own list, not `r.races`.
            d.races.clear();
        }
        out.extend(ws);
    }
    out
}

/// A hazard the front end found, as a warning.
fn hazard(tx: &Texts, k: &Kernel, h: &Hazard) -> Defect {
    match h {
        Hazard::NcLoadAfterGridWait { load, what, wait } => Defect {
            message: format!(
                "`{what}` at {} reads through the read-only path after the grid-dependency wait at {}: the compiler may move it above the wait, before the previous grid's writes",
                k.loc(*load),
                k.loc(*wait)
            ),
            primary: labeled(tx, k, *load, "read-only load"),
            related: labeled(tx, k, *wait, "grid-dependency wait").into_iter().collect(),
            ..Defect::plain(&PDL_NC_LOAD)
        },
    }
}

/// Fills in `suppressed_by` for the findings of a suppressed report (same order as built).
fn mark_suppressed(k: &Kernel, r: &Report, sup: &dyn Filter, out: &mut [Defect]) {
    let mut finds = Vec::new();
    let nraces = out.iter().filter(|d| !d.races.is_empty()).count();
    for d in out.iter().take(nraces) {
        let race = &r.races[d.races[0]];
        finds.push(sup.find(k, race_rule(race).id, &[race.first.span, race.second.span]));
    }
    finds.extend(
        r.divergences
            .iter()
            .map(|d| sup.find(k, BARRIER_DIVERGENCE.id, &[d.span, d.cond_span])),
    );
    finds.extend(
        r.sync_defects
            .iter()
            .map(|s| sup.find(k, sync_rule(&s.kind).id, &s.spans)),
    );
    for (d, by) in out.iter_mut().zip(finds) {
        d.suppressed_by = by;
    }
}
