//! `autosync check`: verification only. Chooses the checker per kernel (named-barrier checker
//! when the kernel uses named barriers, the SDV checker otherwise) and renders its report.

use autosync_oracle::ir::{Kernel, Span, StmtKind};
use autosync_oracle::report::{IterRelation, Race, RaceScope, Report, SyncDefectKind};
use autosync_oracle::{named, sdv, tree};
use serde::Serialize;

/// Which checker to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
pub enum OracleChoice {
    /// Named barriers if the kernel uses any, SDV otherwise.
    Auto,
    /// The SDV checker (block-wide barriers).
    Sdv,
    /// The named-barrier checker.
    Named,
}

/// Whether a kernel uses named barriers (anything but block-wide barrier 0).
pub fn uses_named_barriers(k: &Kernel) -> bool {
    let mut found = false;
    tree::for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(b, _) = &s.kind {
            found |= b.is_named();
        }
    });
    found
}

/// Runs the chosen checker on one kernel.
pub fn check_kernel(k: &Kernel, oracle: OracleChoice, timeout_ms: u32) -> (Report, &'static str) {
    check_kernel_within(k, oracle, timeout_ms, None)
}

/// Runs the chosen checker on one kernel within a wall-clock `budget` (SDV checker only; the
/// named-barrier checker is bounded per query): past it the report is inconclusive.
pub fn check_kernel_within(
    k: &Kernel,
    oracle: OracleChoice,
    timeout_ms: u32,
    budget: Option<std::time::Duration>,
) -> (Report, &'static str) {
    let use_named = match oracle {
        OracleChoice::Named => true,
        OracleChoice::Sdv => false,
        OracleChoice::Auto => uses_named_barriers(k),
    };
    if use_named {
        let opts = named::NamedOptions {
            warp_sync: k.launch.warp_sync.is_some(),
            timeout_ms,
        };
        (named::check(k, &opts), "named")
    } else {
        let opts = sdv::SdvOptions {
            timeout_ms,
            deadline: budget.map(|b| std::time::Instant::now() + b),
            ..Default::default()
        };
        (sdv::check(k, &opts), "sdv")
    }
}

/// Overall verdict of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// No defect.
    Clean,
    /// Defects found.
    Defects,
    /// Could not conclude.
    Inconclusive,
}

/// The verdict of a report: proven defects win; races the solver only assumed, or explicit
/// inconclusive reasons, make the check inconclusive, never clean.
pub fn verdict(r: &Report) -> Verdict {
    let proven = r.races.iter().any(|x| !x.assumed) || !r.divergences.is_empty() || !r.sync_defects.is_empty();
    if proven {
        Verdict::Defects
    } else if !r.races.is_empty() || !r.inconclusive.is_empty() {
        Verdict::Inconclusive
    } else {
        Verdict::Clean
    }
}

/// Source text helpers for rendering.
pub struct Sources<'a> {
    /// Texts by file id.
    pub texts: &'a [String],
}

impl Sources<'_> {
    /// The source line containing the start of a span, trimmed at the end.
    pub fn line_text(&self, span: Span) -> Option<&str> {
        if span.is_dummy() {
            return None;
        }
        let t = self.texts.get(span.file.0 as usize)?;
        let lo = (span.lo as usize).min(t.len());
        let start = t[..lo].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let end = t[lo..].find('\n').map(|i| lo + i).unwrap_or(t.len());
        Some(t[start..end].trim_end_matches('\r'))
    }
}

fn relation_text(r: &[IterRelation]) -> String {
    if r.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = r
        .iter()
        .map(|x| match x {
            IterRelation::SameIteration => "same iteration".to_string(),
            IterRelation::AcrossBackEdge(d) => format!("across the back edge of loop depth {d}"),
            IterRelation::AcrossBackEdgeReversed(d) => {
                format!("across the back edge of loop depth {d}, second access in the earlier iteration")
            }
            IterRelation::Unknown => "iteration relation unknown".to_string(),
        })
        .collect();
    format!(" [{}]", parts.join("; "))
}

fn snippet(out: &mut String, k: &Kernel, src: &Sources, span: Span) {
    if let Some(line) = src.line_text(span) {
        out.push_str(&format!("    {:>5} | {}\n", k.line(span), line));
    }
}

/// Renders one race for the terminal.
pub fn render_race(out: &mut String, k: &Kernel, src: &Sources, r: &Race) {
    let arr = &k.array(r.array).name;
    let scope = match r.scope {
        RaceScope::IntraBlock => "",
        RaceScope::InterBlock => " between blocks (no barrier can fix this)",
    };
    let assumed = if r.assumed {
        " (assumed: the solver could not decide)"
    } else {
        ""
    };
    out.push_str(&format!(
        "  race ({}) on `{arr}`{scope}{assumed}: {} ({:?}) and {} ({:?}){}\n",
        r.kind.short(),
        k.loc(r.first.span),
        r.first.kind,
        k.loc(r.second.span),
        r.second.kind,
        relation_text(&r.relations)
    ));
    snippet(out, k, src, r.first.span);
    if k.line(r.first.span) != k.line(r.second.span) {
        snippet(out, k, src, r.second.span);
    }
    let w = &r.witness;
    if !w.threads.is_empty() {
        let th: Vec<String> = w
            .threads
            .iter()
            .map(|t| {
                format!(
                    "threadIdx=({},{},{}) blockIdx=({},{},{})",
                    t.thread[0], t.thread[1], t.thread[2], t.block[0], t.block[1], t.block[2]
                )
            })
            .collect();
        let mut line = format!("    witness: {}", th.join(" vs "));
        if let Some(i) = w.index {
            line.push_str(&format!(", index {i}"));
        }
        for (n, a, b) in &w.values {
            match b {
                Some(b) if b != a => line.push_str(&format!(", {n}={a}/{b}")),
                _ => line.push_str(&format!(", {n}={a}")),
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
}

/// Renders a whole report; returns the text.
pub fn render_report(k: &Kernel, src: &Sources, r: &Report, checker: &str) -> String {
    let mut out = String::new();
    let v = verdict(r);
    let summary = match v {
        Verdict::Clean => "clean".to_string(),
        Verdict::Defects => {
            let mut parts = Vec::new();
            if !r.races.is_empty() {
                parts.push(format!(
                    "{} race{}",
                    r.races.len(),
                    if r.races.len() == 1 { "" } else { "s" }
                ));
            }
            if !r.divergences.is_empty() {
                parts.push(format!("{} divergent barrier(s)", r.divergences.len()));
            }
            if !r.sync_defects.is_empty() {
                parts.push(format!("{} synchronization defect(s)", r.sync_defects.len()));
            }
            parts.join(", ")
        }
        Verdict::Inconclusive => "inconclusive".to_string(),
    };
    out.push_str(&format!(
        "{}: kernel `{}` ({checker} checker): {summary}\n",
        k.loc(k.span),
        k.name
    ));
    for race in &r.races {
        render_race(&mut out, k, src, race);
    }
    for d in &r.divergences {
        let within = if d.within_warp {
            " (lanes of one warp disagree)"
        } else {
            ""
        };
        out.push_str(&format!(
            "  barrier divergence{within}: barrier at {} is under the non-uniform condition at {}\n",
            k.loc(d.span),
            k.loc(d.cond_span)
        ));
        snippet(&mut out, k, src, d.span);
        snippet(&mut out, k, src, d.cond_span);
    }
    for s in &r.sync_defects {
        let what = match &s.kind {
            SyncDefectKind::Deadlock { .. } => "deadlock".to_string(),
            SyncDefectKind::CountMismatch { counts } => format!("count mismatch ({} vs {})", counts.0, counts.1),
            SyncDefectKind::TooManyParticipants { count, registered } => {
                format!("too many participants ({registered} registered for a count of {count})")
            }
            SyncDefectKind::ArriveOnly => "generation completed by arrivals only (orders nothing)".to_string(),
            SyncDefectKind::UnsafeRecycling { id } => format!("unsafe recycling of barrier {id}"),
            SyncDefectKind::BadId { id } => format!("barrier id {id} outside 0..=15"),
            SyncDefectKind::BadCount { count } => format!("thread count {count} is not a positive multiple of 32"),
        };
        let locs: Vec<String> = s.spans.iter().map(|sp| k.loc(*sp)).collect();
        out.push_str(&format!("  {what}: {}\n", locs.join(", ")));
        for sp in s.spans.iter().take(4) {
            snippet(&mut out, k, src, *sp);
        }
        for t in &s.trace {
            out.push_str(&format!("    {t}\n"));
        }
    }
    for i in &r.inconclusive {
        out.push_str(&format!("  inconclusive: {}: {}\n", k.loc(i.span), i.message));
    }
    out
}
