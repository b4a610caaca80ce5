//! What a file's result says besides its findings: where the unit was read and its front-end
//! notes, warnings about suppression comments, and where each format shows those warnings.

use super::options::Format;
use super::suppress::Suppressions;
use crate::front::SourceUnit;
use crate::output::diag;
use crate::output::results::{CudaJson, EnvironmentJson, FileResult, KernelResult, Warning};
use crate::vocab::texts::{Location, Texts};
use std::collections::BTreeSet;

/// Where the unit was read (JSON), and its front-end notes for `--verbose`.
pub(super) fn describe_unit(res: &mut FileResult, unit: &SourceUnit, verbose: bool) {
    res.environment = unit.env.as_ref().map(|e| EnvironmentJson {
        clang: e.clang.display().to_string(),
        clang_version: e.clang_version,
        cuda: e.toolkit.as_ref().map(|t| CudaJson {
            version: t.version.to_string(),
            path: t.root.display().to_string(),
            source: t.source.clone(),
        }),
        arch: e.arch.clone(),
        index_bits: unit.kernels.first().and_then(|k| k.launch.index_bits),
    });
    if let Some(n) = unit
        .kernels
        .first()
        .and_then(|k| k.launch.index_bits)
        .filter(|_| verbose)
    {
        res.messages.push(format!(
            "{}: note: array indices are assumed below 2^{n} elements (--index-wraparound drops this)",
            res.file
        ));
    }
    // Notes a verdict rests on are shown always; the others with --verbose.
    let shown = unit
        .notes
        .iter()
        .filter(|(_, n)| verbose || n.starts_with(crate::front::ASSUMPTION));
    res.messages.extend(shown.map(|(s, n)| {
        let at = if s.is_dummy() { res.file.clone() } else { unit.loc(*s) };
        format!("{at}: note: {n}")
    }));
}

/// Warnings about suppression comments of the main file: unreadable ones, and ones that
/// suppress nothing. A comment is only called unused when the kernel it belongs to was checked
/// and concluded (an inconclusive kernel may hide the finding it suppresses); one outside every
/// kernel (in a called function) only when all kernels were.
pub(super) fn suppression_warnings(
    unit: &SourceUnit,
    kernels: &[KernelResult],
    sup: &Suppressions,
    filtered: bool,
) -> Vec<Warning> {
    let tx = Texts { texts: &unit.texts };
    let path_of = |file: usize| {
        unit.kernels
            .first()
            .and_then(|k| k.files.get(file))
            .map(|f| f.path.clone())
            .unwrap_or_else(|| unit.path.display().to_string())
    };
    let at = |file: usize, line: u32, column: u32, end_column: u32| Location {
        file: path_of(file),
        line,
        column,
        end_line: line,
        end_column,
        text_index: file,
        bytes: (0, 0),
    };
    // Unreadable comments anywhere the unit reads (an included header's too: it is never
    // checked on its own).
    let mut out: Vec<Warning> = sup
        .problems
        .iter()
        .map(|p| Warning {
            rule: "invalid-suppression",
            location: at(p.file, p.line, p.column, p.end_column),
            message: p.message.clone(),
        })
        .collect();
    let used: BTreeSet<usize> = kernels
        .iter()
        .flat_map(|k| k.suppressed.iter())
        .filter_map(|d| d.suppressed_by.as_ref().and_then(|b| b.comment))
        .collect();
    let concluded = |name: &str| {
        kernels
            .iter()
            .find(|k| k.kernel == name)
            .is_some_and(|k| k.status != "inconclusive")
    };
    let all_concluded = !filtered && unit.kernels.iter().all(|k| concluded(&k.name));
    for (ci, c) in sup.comments.iter().enumerate() {
        if c.file != 0 || used.contains(&ci) {
            continue;
        }
        let owner = unit.kernels.iter().find(|k| {
            tx.location(k, k.span).is_some_and(|l| {
                if c.kernel_level {
                    (c.lines.0..=c.lines.1).contains(&l.line)
                } else {
                    (l.line..=l.end_line).contains(&c.line)
                }
            })
        });
        let decided = match owner {
            Some(k) => concluded(&k.name),
            None => all_concluded,
        };
        if decided {
            out.push(Warning {
                rule: "unused-suppression",
                location: at(0, c.line, c.column, c.end_column),
                message: format!("`{}` suppresses nothing (remove it)", c.text),
            });
        }
    }
    out.sort_by_key(|w| (w.location.text_index, w.location.line, w.location.column));
    out
}

/// Puts a file's warnings where its format shows them.
pub(super) fn render_warnings(res: &mut FileResult, format: Format, check: bool) {
    for w in &res.warnings {
        let l = &w.location;
        match format {
            Format::Github => res.stdout.push_str(&diag::github_line(
                "warning",
                &l.file,
                Some((l.line, l.column, l.end_line, l.end_column)),
                w.rule,
                &w.message,
            )),
            Format::Text | Format::Concise => {
                let line = format!("{}:{}:{}: warning[{}]: {}", l.file, l.line, l.column, w.rule, w.message);
                if check {
                    res.stdout.push_str(&line);
                    res.stdout.push('\n');
                } else {
                    res.messages.push(line);
                }
            }
            Format::Json | Format::Sarif => {}
        }
    }
}
