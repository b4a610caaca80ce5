//! The words of `fix`: why a kernel stays unfixable (with the race's witness and a hint), the
//! `--annotate` comment of each barrier, and races as line pairs.

use crate::output::fixes::BarrierJson;
use crate::synth::block::Unfixable;
use crate::synth::named::{self, NamedKind};
use crate::vocab::texts::Texts;
use autosync_oracle::ir::Kernel;
use autosync_oracle::report::Race;
use autosync_oracle::tree::LabelTree;

/// A race as the lines of its two accesses (`12↔34`).
pub(super) fn race_pair(k: &Kernel, r: &Race) -> String {
    format!("{}↔{}", k.line(r.first.span), k.line(r.second.span))
}

/// The `--annotate` comment of a barrier: one short line naming the arrays and races it
/// orders (those it alone orders, else those it shares).
pub(super) fn annotation(tx: &Texts, k: &Kernel, races: &[Race], b: &BarrierJson, what: &str) -> String {
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

/// What a named barrier does, for its `--annotate` comment.
pub(super) fn named_what(b: &named::NamedPlaced) -> String {
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
/// that no launch uses them (the witness's values are one example; the race may not need them).
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
        "hint: the witness takes {}; if the race needs such values and no launch uses them, {state}, or check with the values you launch with (`{}`)",
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
            let what = if is_grid_barrier(k, *l) {
                "an existing grid barrier is under a condition that may differ between threads or blocks"
            } else {
                "an existing barrier is under a thread-dependent condition"
            };
            format!("{}: {what} (barrier divergence)", k.loc(tree.get(*l).span))
        }
        Unfixable::NoPlacement => "no barrier placement removes every race".into(),
    }
}

/// Whether statement `l` is a `grid.sync()`.
fn is_grid_barrier(k: &Kernel, l: autosync_oracle::ir::Label) -> bool {
    let mut grid = false;
    autosync_oracle::tree::for_each_stmt(&k.body, &mut |s: &autosync_oracle::ir::Stmt| {
        grid |= s.label == l
            && matches!(
                s.kind,
                autosync_oracle::ir::StmtKind::Barrier(_, autosync_oracle::ir::BarrierSyntax::GridSync)
            );
    });
    grid
}
