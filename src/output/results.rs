//! Structured results of `check` and `fix`, shared by the text, JSON and SARIF outputs.
//!
//! Locations are 1-based lines and columns counted in Unicode code points (what SARIF calls
//! `unicodeCodePoints`), so they are right for non-ASCII sources too.

use super::defect::{Defect, Labeled};
use super::fixes::{BarrierJson, KernelFix};
use crate::vocab::exit;
use crate::vocab::filter::Filter;
use crate::vocab::texts::{Location, Texts};
use autosync_oracle::ir::{Kernel, SourceFile, Span};
use autosync_oracle::report::Report;
use serde::Serialize;

/// An inserted barrier with its position and what it orders.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Barrier {
    /// 1-based line in the patched file.
    pub line: u32,
    /// 1-based column of the statement in the patched file.
    pub column: u32,
    /// 1-based line of the original file the barrier is inserted before.
    pub original_line: u32,
    /// The inserted statement.
    pub text: String,
    /// `syncthreads` (block-wide) or `named`.
    pub kind: &'static str,
    /// Named barriers: `sync` or `arrive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<&'static str>,
    /// Barrier ID (0 for block-wide barriers; the first of `ids` when the ID cycles).
    pub id: u32,
    /// Every ID it uses when the ID cycles with a loop counter.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<u32>,
    /// Participating threads (the block size for block-wide barriers), when known.
    pub count: Option<u64>,
    /// Cost under the cost model.
    pub cost: f64,
    /// The races it alone removes, as `first line↔second line`.
    pub covers: Vec<String>,
    /// Races it orders only together with other inserted barriers (a channel's arrive and
    /// sync, one barrier per iteration relation, or alternatives of which either suffices).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shares: Vec<String>,
    /// Patched-file lines of the other barriers those races need.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shared_with: Vec<u32>,
    /// Indexes into the kernel's `defects` of the races it orders (alone or shared).
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
            let covers_defects = defects
                .iter()
                .enumerate()
                .filter(|(_, d)| d.races.iter().any(|r| b.covers_races.contains(r)))
                .map(|(i, _)| i)
                .collect();
            let mut shared_with: Vec<u32> = fix
                .iter()
                .filter(|o| !std::ptr::eq(*o, b) && o.covers_races.iter().any(|r| b.covers_races.contains(r)))
                .map(|o| o.line)
                .collect();
            if b.shares.is_empty() {
                shared_with.clear();
            }
            shared_with.sort_unstable();
            shared_with.dedup();
            let (kind, op, id, ids, count) = match &b.named {
                Some(n) => (
                    "named",
                    Some(if n.arrive { "arrive" } else { "sync" }),
                    n.ids.first().copied().unwrap_or(0),
                    if n.ids.len() > 1 { n.ids.clone() } else { vec![] },
                    Some(n.count as u64),
                ),
                None => ("syncthreads", None, 0, vec![], threads),
            };
            Barrier {
                line: b.line,
                column,
                original_line: b.original_line,
                text: b.text.clone(),
                kind,
                op,
                id,
                ids,
                count,
                cost: b.cost,
                covers: b.covers.clone(),
                shares: b.shares.clone(),
                shared_with,
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
    /// Where the file was read (Clang, CUDA toolkit or shim, architecture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentJson>,
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
    /// Which checker ran (`sdv` or `named`; `front end` for a kernel that could not be lowered).
    pub checker: String,
    /// Races in the input (for `fix`, also when `defects` is not filled in).
    pub races: usize,
    /// Defects found in the input.
    pub defects: Vec<Defect>,
    /// Findings a suppression silenced (not defects; listed so nothing is dropped silently).
    pub suppressed: Vec<Defect>,
    /// `fix` only: inserted barriers.
    pub barriers: Vec<Barrier>,
    /// `fix` only: total cost of the inserted barriers.
    pub cost: f64,
    /// `fix` only: why the kernel is unfixable or inconclusive.
    pub reasons: Vec<String>,
    /// `fix` only: notes on how the barriers were written (e.g. a style fallback).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `fix --minimize` only: the author's barriers removed, cost before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimized: Option<super::fixes::MinimizedJson>,
    /// Oracle calls and time.
    pub stats: Stats,
    /// `check` only: the raw checker report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<Report>,
}

/// A kernel's findings: defects, and what suppressions silenced.
#[derive(Clone, Debug, Default)]
pub struct Findings {
    /// Defects (what the exit code and `fix` act on).
    pub defects: Vec<Defect>,
    /// Suppressed findings, each with what suppressed it.
    pub suppressed: Vec<Defect>,
}

impl Findings {
    /// The findings of a report split by `sup` into `kept` and `gone`.
    pub fn of(k: &Kernel, tx: &Texts, kept: &Report, gone: &Report, sup: &dyn Filter) -> Findings {
        Findings {
            defects: super::findings::defects(k, tx, kept, None),
            suppressed: super::findings::defects(k, tx, gone, Some(sup)),
        }
    }

    /// Number of race findings among the defects.
    pub fn races(&self) -> usize {
        self.defects.iter().filter(|d| !d.races.is_empty()).count()
    }
}

/// One kernel as `check` saw it.
pub struct Checked {
    /// The checker's report without suppressed findings.
    pub report: Report,
    /// Its findings.
    pub findings: Findings,
    /// Which checker ran.
    pub checker: &'static str,
    /// Wall time.
    pub millis: f64,
}

/// Builds the result of checking one kernel.
pub fn from_check(file: &str, k: &Kernel, tx: &Texts, c: Checked) -> KernelResult {
    let v = verdict(&c.report);
    let status = match v {
        Verdict::Clean => "clean",
        Verdict::Defects => "defects",
        Verdict::Inconclusive => "inconclusive",
    };
    KernelResult {
        environment: None,
        file: file.to_string(),
        kernel: k.name.clone(),
        location: tx.location(k, k.span),
        status: status.into(),
        verdict: Some(v),
        checker: c.checker.into(),
        races: c.findings.races(),
        defects: c.findings.defects,
        suppressed: c.findings.suppressed,
        barriers: vec![],
        cost: 0.0,
        reasons: vec![],
        notes: vec![],
        minimized: None,
        stats: Stats {
            oracle_calls: 1,
            maxsat_calls: 0,
            rounds: 0,
            millis: c.millis,
        },
        report: Some(c.report),
    }
}

/// A kernel the front end could not lower, as the outputs show it.
pub struct NotLowered<'a> {
    /// The kernel's name as shown.
    pub kernel: &'a str,
    /// Where the kernel is defined.
    pub at: Span,
    /// `unsupported` or `needs a value`.
    pub kind: &'a str,
    /// What it could not lower.
    pub message: &'a str,
    /// What the user can do.
    pub help: Option<&'a str>,
    /// Where the construct is.
    pub span: Span,
}

/// The result of a kernel the front end could not lower (`check` and `fix` alike): inconclusive,
/// with the construct's location and what to do.
pub fn from_unlowered(file: &str, u: &NotLowered, files: &[SourceFile], tx: &Texts, fix: bool) -> KernelResult {
    let kind = u.kind;
    let mut d = Defect::plain(&crate::vocab::rules::INCONCLUSIVE);
    d.message = format!("{kind}: {}", u.message);
    d.primary = tx.location_in(files, u.span).map(|location| Labeled {
        location,
        label: kind.to_string(),
    });
    d.notes.extend(u.help.iter().map(|h| format!("help: {h}")));
    KernelResult {
        environment: None,
        file: file.to_string(),
        kernel: u.kernel.to_string(),
        location: tx.location_in(files, u.at),
        status: "inconclusive".into(),
        verdict: (!fix).then_some(Verdict::Inconclusive),
        checker: "front end".into(),
        races: 0,
        defects: vec![d],
        suppressed: vec![],
        barriers: vec![],
        cost: 0.0,
        reasons: if fix {
            vec![format!("{kind}: {}", u.message)]
        } else {
            vec![]
        },
        notes: vec![],
        minimized: None,
        stats: Stats {
            oracle_calls: 0,
            maxsat_calls: 0,
            rounds: 0,
            millis: 0.0,
        },
        report: None,
    }
}

/// Builds the result of fixing one kernel; `found` holds the kernel's findings when known.
pub fn from_fix(
    file: &str,
    k: Option<&Kernel>,
    tx: &Texts,
    fix: &KernelFix,
    found: Option<Findings>,
    patched: Option<&str>,
) -> KernelResult {
    let threads = k.and_then(|k| k.launch.threads_per_block());
    let races = found.as_ref().map_or(fix.races.len(), Findings::races);
    let found = found.unwrap_or_default();
    KernelResult {
        environment: None,
        file: file.to_string(),
        kernel: fix.kernel.clone(),
        location: k.and_then(|k| tx.location(k, k.span)),
        status: fix.status.into(),
        verdict: None,
        checker: if k.is_some_and(autosync_oracle::tree::uses_named_barriers) {
            "named"
        } else {
            "sdv"
        }
        .into(),
        barriers: barriers(&fix.barriers, threads, patched, &found.defects),
        races,
        defects: found.defects,
        suppressed: found.suppressed,
        cost: fix.cost,
        // One unfixable race reached from several call sites gives the same reason each time.
        reasons: fix.reasons.iter().fold(Vec::new(), |mut v, r| {
            if !v.contains(r) {
                v.push(r.clone());
            }
            v
        }),
        notes: fix.notes.clone(),
        minimized: fix.minimized.clone(),
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
    /// 1-based first line of the new text in the patched file.
    pub new_start_line: u32,
    /// 1-based line after the new text in the patched file.
    pub new_end_line: u32,
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
            new_start_line: n.start as u32 + 1,
            new_end_line: n.end as u32 + 1,
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

impl FileError {
    /// An input error (exit 2) without a position.
    pub fn input(file: &str, message: impl Into<String>, help: Option<&str>) -> FileError {
        FileError {
            file: file.to_string(),
            line: None,
            column: None,
            kind: "error".into(),
            message: message.into(),
            help: help.map(str::to_string),
            exit_code: exit::INPUT,
        }
    }

    /// `file:line:col: kind: message` and the help line, as printed on standard error.
    pub fn render(&self) -> String {
        let loc = match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", self.file),
            _ => self.file.clone(),
        };
        let mut s = format!("{loc}: {}: {}", self.kind, self.message);
        if let Some(h) = &self.help {
            s.push_str(&format!("\n  help: {h}"));
        }
        s
    }
}

/// A warning about the run rather than the code: a suppression comment that suppresses nothing
/// or cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// `unused-suppression` or `invalid-suppression`.
    pub rule: &'static str,
    /// Where.
    pub location: Location,
    /// What.
    pub message: String,
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
    /// Suppression comments that suppress nothing or cannot be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Where the file was read (absent when it could not be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<EnvironmentJson>,
    /// The exit code this file implies.
    #[serde(skip)]
    pub exit_code: u8,
    /// A file named on the command line that has code but no kernel (host code only): noted,
    /// so the run is not "no kernel in the given paths".
    #[serde(skip)]
    pub kernel_free: bool,
    /// Front-end notes and other messages for stderr (text mode).
    #[serde(skip)]
    pub messages: Vec<String>,
    /// Text for stdout (text mode: rendered diagnostics, diffs, patched files).
    #[serde(skip)]
    pub stdout: String,
}

/// Where a file was read: the Clang, the CUDA toolkit (or the built-in shim) and the
/// architecture of the device pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnvironmentJson {
    /// The Clang executable.
    pub clang: String,
    /// Its major version.
    pub clang_version: u32,
    /// The CUDA toolkit, or null for the built-in shim.
    pub cuda: Option<CudaJson>,
    /// The GPU architecture (`sm_80`).
    pub arch: String,
    /// Array indices are assumed to lie in `[-2^n, 2^n)` elements; absent with
    /// `--index-wraparound`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_bits: Option<u32>,
}

/// A CUDA toolkit as the JSON output names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CudaJson {
    /// Its version (`12.9.86`).
    pub version: String,
    /// The directory Clang read it from.
    pub path: String,
    /// How it was found (`CUDA_PATH`, `pip wheels in DIR`, ...).
    pub source: String,
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
    /// Findings silenced by suppressions (not counted anywhere else).
    pub suppressed: usize,
    /// Suppression comments that suppress nothing or cannot be read.
    pub warnings: usize,
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
            s.warnings += f.warnings.len();
            for k in &f.kernels {
                s.kernels += 1;
                s.suppressed += k.suppressed.len();
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
        parts.push(format!("{} suppressed", self.suppressed));
        parts.push(plural(self.warnings, "warning"));
        parts.push(plural(self.errors, "error"));
        format!("summary: {}", parts.join(", "))
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
