//! Structured results of `check` and `fix`, shared by the text, JSON and SARIF outputs.
//!
//! Locations are 1-based lines and columns counted in Unicode code points (what SARIF calls
//! `unicodeCodePoints`), so they are right for non-ASCII sources too.

use crate::check::Verdict;
use crate::fix::{BarrierJson, KernelFix};
use autosync_oracle::ir::{Kernel, Span};
use autosync_oracle::report::{Race, RaceScope, Report, SyncDefectKind};
use serde::Serialize;

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Path as given on the command line (or of the included file).
    pub file: String,
    /// 1-based line of the start.
    pub line: u32,
    /// 1-based column of the start (code points).
    pub column: u32,
    /// 1-based line of the end.
    pub end_line: u32,
    /// 1-based column one past the end (code points).
    pub end_column: u32,
    /// Index of the text in the unit (for snippets).
    #[serde(skip)]
    pub text_index: usize,
}

/// Source texts of one unit, to turn spans into locations and show snippets.
pub struct Texts<'a> {
    /// Texts by file id.
    pub texts: &'a [String],
}

impl Texts<'_> {
    /// The line/column of a byte offset in text `file`.
    fn line_col(&self, file: usize, offset: u32) -> Option<(u32, u32)> {
        let t = self.texts.get(file)?;
        let off = (offset as usize).min(t.len());
        let off = (0..=off).rev().find(|&o| t.is_char_boundary(o)).unwrap_or(0);
        let before = &t[..off];
        let line = before.matches('\n').count() as u32 + 1;
        let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        Some((line, before[start..].chars().count() as u32 + 1))
    }

    /// The location of a span of kernel `k` (None for synthesized spans).
    pub fn location(&self, k: &Kernel, span: Span) -> Option<Location> {
        if span.is_dummy() {
            return None;
        }
        let fi = span.file.0 as usize;
        let (line, column) = self.line_col(fi, span.lo)?;
        let (end_line, end_column) = self.line_col(fi, span.hi.max(span.lo))?;
        Some(Location {
            file: k.files.get(fi).map(|f| f.path.clone()).unwrap_or_default(),
            line,
            column,
            end_line,
            end_column,
            text_index: fi,
        })
    }

    /// The text of 1-based `line` of text `file`, without its line ending.
    pub fn line_text(&self, file: usize, line: u32) -> Option<&str> {
        let t = self.texts.get(file)?;
        t.split('\n')
            .nth(line.checked_sub(1)? as usize)
            .map(|l| l.trim_end_matches('\r'))
    }
}

/// A location with a short label (`read`, `write`, `condition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Labeled {
    /// Where.
    #[serde(flatten)]
    pub location: Location,
    /// What happens there.
    pub label: String,
}

/// How bad a defect is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A proven defect.
    Error,
    /// Could not decide (an assumed race, an inconclusive part).
    Warning,
}

/// One defect of a kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Defect {
    /// Rule: `race`, `barrier-divergence`, `deadlock`, ..., `inconclusive`.
    pub rule: String,
    /// Error or warning.
    pub severity: Severity,
    /// One-line description.
    pub message: String,
    /// Primary location with its label (the first access of a race).
    pub primary: Option<Labeled>,
    /// Other locations (the second access of a race, the condition of a divergence).
    pub related: Vec<Labeled>,
    /// Race kind (`RAW`, `WAR`, `WAW`, `atomic-vs-plain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race_kind: Option<String>,
    /// The array raced on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
    /// Whether no barrier can fix it (inter-block race).
    pub inter_block: bool,
    /// The checker's witness (threads, index, parameter values), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<serde_json::Value>,
    /// Extra lines (witness in words, named-barrier trace).
    pub notes: Vec<String>,
}

/// The witness of a race in words (`witness: threadIdx=... vs ..., index 3, n=0`).
pub(crate) fn witness_text(w: &autosync_oracle::report::Witness) -> Option<String> {
    if w.threads.is_empty() {
        return None;
    }
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
    let mut line = format!("witness: {}", th.join(" vs "));
    if let Some(i) = w.index {
        line.push_str(&format!(", index {i}"));
    }
    for (n, a, b) in &w.values {
        match b {
            Some(b) if b != a => line.push_str(&format!(", {n}={a}/{b}")),
            _ => line.push_str(&format!(", {n}={a}")),
        }
    }
    Some(line)
}

fn access_word(k: autosync_oracle::ir::AccessKind) -> &'static str {
    match k {
        autosync_oracle::ir::AccessKind::Read => "read",
        autosync_oracle::ir::AccessKind::Write => "write",
        autosync_oracle::ir::AccessKind::Atomic => "atomic",
    }
}

fn labeled(tx: &Texts, k: &Kernel, span: Span, label: &str) -> Option<Labeled> {
    tx.location(k, span).map(|location| Labeled {
        location,
        label: label.to_string(),
    })
}

fn sync_defect_words(kind: &SyncDefectKind) -> (&'static str, String) {
    match kind {
        SyncDefectKind::Deadlock { .. } => ("deadlock", "deadlock: some execution waits forever".into()),
        SyncDefectKind::CountMismatch { counts } => (
            "count-mismatch",
            format!("named barrier count mismatch ({} vs {})", counts.0, counts.1),
        ),
        SyncDefectKind::TooManyParticipants { count, registered } => (
            "too-many-participants",
            format!("too many participants ({registered} registered for a count of {count})"),
        ),
        SyncDefectKind::ArriveOnly => (
            "arrive-only",
            "generation completed by arrivals only (orders nothing)".into(),
        ),
        SyncDefectKind::UnsafeRecycling { id } => ("unsafe-recycling", format!("unsafe recycling of barrier {id}")),
        SyncDefectKind::BadId { id } => ("bad-id", format!("barrier id {id} outside 0..=15")),
        SyncDefectKind::BadCount { count } => (
            "bad-count",
            format!("thread count {count} is not a positive multiple of 32"),
        ),
    }
}

/// A race as a defect: rule `race`, or `benign-race` for a write-write race where every thread
/// stores the same value (a warning unless `--strict` put it among the races).
fn race_defect(k: &Kernel, tx: &Texts, race: &Race, benign_warning: bool) -> Defect {
    let arr = k.array(race.array).name.clone();
    let inter_block = race.scope == RaceScope::InterBlock;
    let mut message = if race.benign {
        format!(
            "benign race ({}, every thread stores the same value) on `{arr}`",
            race.kind.short()
        )
    } else {
        format!("race ({}) on `{arr}`", race.kind.short())
    };
    if inter_block {
        message.push_str(" between blocks");
        if !race.benign {
            message.push_str(" (no barrier can fix this)");
        }
    }
    if race.assumed {
        message.push_str(" (assumed: the solver could not decide)");
    }
    message.push_str(&format!(
        ": {} at {} and {} at {}",
        access_word(race.first.kind),
        k.loc(race.first.span),
        access_word(race.second.kind),
        k.loc(race.second.span)
    ));
    let mut notes: Vec<String> = witness_text(&race.witness).into_iter().collect();
    if benign_warning {
        notes.push("not a defect by default; `--strict` reports benign races as races".into());
    }
    Defect {
        rule: if race.benign { "benign-race" } else { "race" }.into(),
        severity: if race.assumed || benign_warning {
            Severity::Warning
        } else {
            Severity::Error
        },
        message,
        primary: labeled(tx, k, race.first.span, access_word(race.first.kind)),
        related: labeled(tx, k, race.second.span, access_word(race.second.kind))
            .into_iter()
            .collect(),
        race_kind: Some(race.kind.short().into()),
        array: Some(arr),
        inter_block,
        witness: serde_json::to_value(&race.witness).ok(),
        notes,
    }
}

/// The defects of a checker report, in report order; benign races (warnings) last.
pub fn defects(k: &Kernel, tx: &Texts, r: &Report) -> Vec<Defect> {
    let mut out: Vec<Defect> = r.races.iter().map(|race| race_defect(k, tx, race, false)).collect();
    for d in &r.divergences {
        let within = if d.within_warp {
            " (lanes of one warp disagree)"
        } else {
            ""
        };
        out.push(Defect {
            rule: "barrier-divergence".into(),
            severity: Severity::Error,
            message: format!(
                "barrier divergence{within}: barrier at {} is under the non-uniform condition at {}",
                k.loc(d.span),
                k.loc(d.cond_span)
            ),
            primary: labeled(tx, k, d.span, "barrier"),
            related: labeled(tx, k, d.cond_span, "non-uniform condition")
                .into_iter()
                .collect(),
            race_kind: None,
            array: None,
            inter_block: false,
            witness: None,
            notes: vec![],
        });
    }
    for s in &r.sync_defects {
        let (rule, message) = sync_defect_words(&s.kind);
        let mut spans = s.spans.iter();
        out.push(Defect {
            rule: rule.into(),
            severity: Severity::Error,
            message,
            primary: spans.next().and_then(|sp| labeled(tx, k, *sp, "here")),
            related: spans.filter_map(|sp| labeled(tx, k, *sp, "involved")).collect(),
            race_kind: None,
            array: None,
            inter_block: false,
            witness: None,
            notes: s.trace.clone(),
        });
    }
    out.extend(r.benign.iter().map(|race| race_defect(k, tx, race, true)));
    for i in &r.inconclusive {
        out.push(Defect {
            rule: "inconclusive".into(),
            severity: Severity::Warning,
            message: format!("inconclusive: {}", i.message),
            primary: labeled(tx, k, i.span, "here"),
            related: vec![],
            race_kind: None,
            array: None,
            inter_block: false,
            witness: None,
            notes: vec![],
        });
    }
    out
}

/// An inserted barrier with its position and what it orders.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Barrier {
    /// 1-based line in the patched file.
    pub line: u32,
    /// 1-based column of the statement in the patched file.
    pub column: u32,
    /// The inserted statement.
    pub text: String,
    /// `syncthreads` (block-wide) or `named`.
    pub kind: &'static str,
    /// Barrier ID (0 for block-wide barriers).
    pub id: u32,
    /// Participating threads (the block size for block-wide barriers), when known.
    pub count: Option<u64>,
    /// Cost under the cost model.
    pub cost: f64,
    /// The races it orders, as `first line↔second line`.
    pub covers: Vec<String>,
    /// Indexes into the kernel's `defects` of the races it orders.
    pub covers_defects: Vec<usize>,
}

/// Builds barrier records from the fix report, locating each in the patched text.
pub fn barriers(fix: &[BarrierJson], threads: Option<u64>, patched: Option<&str>, defects: &[Defect]) -> Vec<Barrier> {
    fix.iter()
        .map(|b| {
            let column = patched
                .and_then(|p| p.split('\n').nth(b.line.saturating_sub(1) as usize))
                .map(|l| l.chars().take_while(|c| c.is_whitespace()).count() as u32 + 1)
                .unwrap_or(1);
            let named = b.text.contains("bar.");
            let covers_defects = defects
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    d.rule == "race"
                        && b.covers.iter().any(|c| {
                            let a = d.primary.as_ref().map(|p| p.location.line);
                            let z = d.related.first().map(|p| p.location.line);
                            matches!((a, z), (Some(a), Some(z)) if *c == format!("{a}↔{z}"))
                        })
                })
                .map(|(i, _)| i)
                .collect();
            Barrier {
                line: b.line,
                column,
                text: b.text.clone(),
                kind: if named { "named" } else { "syncthreads" },
                id: 0,
                count: threads,
                cost: b.cost,
                covers: b.covers.clone(),
                covers_defects,
            }
        })
        .collect()
}

/// Oracle calls and time for one kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Checker (oracle) calls.
    pub oracle_calls: u32,
    /// MaxSAT solves.
    pub maxsat_calls: u32,
    /// Refinement rounds.
    pub rounds: u32,
    /// Wall time in milliseconds.
    pub millis: f64,
}

/// The result for one kernel (the same shape for `check` and `fix`).
#[derive(Clone, Debug, Serialize)]
pub struct KernelResult {
    /// The file.
    pub file: String,
    /// Kernel name.
    pub kernel: String,
    /// Where the kernel starts.
    pub location: Option<Location>,
    /// check: clean | defects | inconclusive; fix: clean | fixed | partial | unfixable |
    /// inconclusive.
    pub status: String,
    /// `check` only: the verdict (same as status; kept for version-1 readers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Which checker ran (`sdv` or `named`).
    pub checker: String,
    /// Races in the input (for `fix`, also when `defects` is not filled in).
    pub races: usize,
    /// Defects found in the input.
    pub defects: Vec<Defect>,
    /// `fix` only: inserted barriers.
    pub barriers: Vec<Barrier>,
    /// `fix` only: total cost of the inserted barriers.
    pub cost: f64,
    /// `fix` only: why the kernel is unfixable or inconclusive.
    pub reasons: Vec<String>,
    /// `fix` only: notes on how the barriers were written (e.g. a style fallback).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Oracle calls and time.
    pub stats: Stats,
    /// `check` only: the raw checker report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
}

/// Builds the result of checking one kernel.
pub fn from_check(file: &str, k: &Kernel, tx: &Texts, report: Report, checker: &str, millis: f64) -> KernelResult {
    let v = crate::check::verdict(&report);
    let status = match v {
        Verdict::Clean => "clean",
        Verdict::Defects => "defects",
        Verdict::Inconclusive => "inconclusive",
    };
    KernelResult {
        file: file.to_string(),
        kernel: k.name.clone(),
        location: tx.location(k, k.span),
        status: status.into(),
        verdict: Some(v),
        checker: checker.into(),
        races: report.races.len(),
        defects: defects(k, tx, &report),
        barriers: vec![],
        cost: 0.0,
        reasons: vec![],
        notes: vec![],
        stats: Stats {
            oracle_calls: 1,
            maxsat_calls: 0,
            rounds: 0,
            millis,
        },
        report: Some(report),
    }
}

/// Builds the result of fixing one kernel; `found` holds the kernel's defects when known.
pub fn from_fix(
    file: &str,
    k: Option<&Kernel>,
    tx: &Texts,
    fix: &KernelFix,
    found: Vec<Defect>,
    patched: Option<&str>,
) -> KernelResult {
    let threads = k.and_then(|k| k.launch.threads_per_block());
    KernelResult {
        file: file.to_string(),
        kernel: fix.kernel.clone(),
        location: k.and_then(|k| tx.location(k, k.span)),
        status: fix.status.into(),
        verdict: None,
        checker: if k.is_some_and(crate::check::uses_named_barriers) {
            "named"
        } else {
            "sdv"
        }
        .into(),
        barriers: barriers(&fix.barriers, threads, patched, &found),
        races: fix.races.len(),
        defects: found,
        cost: fix.cost,
        reasons: fix.reasons.clone(),
        notes: fix.notes.clone(),
        stats: Stats {
            oracle_calls: fix.stats.oracle_calls,
            maxsat_calls: fix.stats.maxsat_calls,
            rounds: fix.stats.rounds,
            millis: fix.stats.millis,
        },
        report: None,
    }
}

/// A text replacement that turns the original file into the patched one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replacement {
    /// 1-based first original line replaced (or before which text is inserted).
    pub start_line: u32,
    /// 1-based line after the last replaced line (`start_line` for pure insertions).
    pub end_line: u32,
    /// Code-point offset of the start in the original text.
    pub char_offset: usize,
    /// Code points deleted.
    pub char_length: usize,
    /// The new text.
    pub inserted: String,
}

/// Line-level replacements from `original` to `patched`.
pub fn replacements(original: &str, patched: &str) -> Vec<Replacement> {
    let diff = similar::TextDiff::from_lines(original, patched);
    let old: Vec<&str> = original.split_inclusive('\n').collect();
    let new: Vec<&str> = patched.split_inclusive('\n').collect();
    let chars_before = |n: usize| old[..n.min(old.len())].iter().map(|l| l.chars().count()).sum::<usize>();
    let mut out = Vec::new();
    for op in diff.ops() {
        if op.tag() == similar::DiffTag::Equal {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        let char_offset = chars_before(o.start);
        out.push(Replacement {
            start_line: o.start as u32 + 1,
            end_line: o.end as u32 + 1,
            char_offset,
            char_length: chars_before(o.end) - char_offset,
            inserted: new[n.start.min(new.len())..n.end.min(new.len())].concat(),
        });
    }
    out
}

/// A file-level error (unreadable, does not parse, emission or verification failed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileError {
    /// The file.
    pub file: String,
    /// Where, when known.
    pub line: Option<u32>,
    /// Column, when known.
    pub column: Option<u32>,
    /// `error`, `unsupported`, `needs a value`.
    pub kind: String,
    /// What went wrong.
    pub message: String,
    /// A hint.
    pub help: Option<String>,
    /// The exit code it implies.
    pub exit_code: u8,
}

/// The result for one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileResult {
    /// The path.
    pub file: String,
    /// Per kernel, in file order.
    pub kernels: Vec<KernelResult>,
    /// `fix`: whether the file's text changes.
    pub changed: bool,
    /// `fix`: the unified diff (empty when unchanged).
    pub diff: String,
    /// `fix`: the changes as replacements of original lines.
    pub replacements: Vec<Replacement>,
    /// Why the file could not be processed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<FileError>,
    /// The exit code this file implies.
    #[serde(skip)]
    pub exit_code: u8,
    /// Front-end notes and other messages for stderr (text mode).
    #[serde(skip)]
    pub messages: Vec<String>,
    /// Text for stdout (text mode: rendered diagnostics, diffs, patched files).
    #[serde(skip)]
    pub stdout: String,
}

/// Totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Files processed.
    pub files: usize,
    /// Kernels seen.
    pub kernels: usize,
    /// Kernels without defects.
    pub clean: usize,
    /// `check`: kernels with defects.
    pub with_defects: usize,
    /// `fix`: kernels fixed.
    pub fixed: usize,
    /// Races found in the input.
    pub races_found: usize,
    /// `fix`: races removed by inserted barriers.
    pub races_fixed: usize,
    /// `fix`: barriers inserted (or that would be).
    pub barriers_inserted: usize,
    /// `fix`: kernels no barrier placement can fix.
    pub unfixable: usize,
    /// Kernels that could not be decided.
    pub inconclusive: usize,
    /// Files that could not be processed.
    pub errors: usize,
    /// `fix`: files changed (or that would be).
    pub files_changed: usize,
    /// The process exit code.
    pub exit_code: u8,
}

impl Summary {
    /// Totals of a list of file results.
    pub fn of(files: &[FileResult], exit_code: u8) -> Summary {
        let mut s = Summary {
            files: files.len(),
            exit_code,
            ..Default::default()
        };
        for f in files {
            s.errors += usize::from(f.error.is_some());
            s.files_changed += usize::from(f.changed);
            for k in &f.kernels {
                s.kernels += 1;
                s.races_found += k.races;
                match k.status.as_str() {
                    "clean" => s.clean += 1,
                    "defects" => s.with_defects += 1,
                    "fixed" => {
                        s.fixed += 1;
                        s.races_fixed += k.races;
                        s.barriers_inserted += k.barriers.len();
                    }
                    "unfixable" => s.unfixable += 1,
                    // Barriers were written, and races remain that no barrier removes.
                    "partial" => {
                        s.unfixable += 1;
                        s.barriers_inserted += k.barriers.len();
                    }
                    _ => s.inconclusive += 1,
                }
            }
        }
        s
    }

    /// The closing line of a text run.
    pub fn text(&self, fix: bool) -> String {
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let mut parts = vec![plural(self.files, "file"), plural(self.kernels, "kernel")];
        if fix {
            parts.push(format!("{} races fixed", self.races_fixed));
            parts.push(format!("{} barriers inserted", self.barriers_inserted));
            parts.push(format!("{} files changed", self.files_changed));
            parts.push(format!("{} unfixable", self.unfixable));
        } else {
            parts.push(format!("{} clean", self.clean));
            parts.push(format!("{} with defects", self.with_defects));
            parts.push(format!("{} races", self.races_found));
        }
        parts.push(format!("{} inconclusive", self.inconclusive));
        parts.push(plural(self.errors, "error"));
        format!("summary: {}", parts.join(", "))
    }
}
