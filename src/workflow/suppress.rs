//! Suppressions: `// autosync: ignore[rule, ...]` on a line a finding points at,
//! `// autosync: ignore-kernel[rule, ...]` just above a kernel, and `ignore:` entries of
//! autosync.yaml. A suppressed finding is not a defect (it sets no exit code and `fix` inserts no
//! barrier for it) but it is never dropped: the outputs count and list it with what suppressed
//! it. A comment that suppresses nothing is reported, like ruff's unused `noqa`.
//!
//! Comments are read from the original source texts (not from the lowering), so any front end
//! that gives spans into those texts gets suppressions for free.

use super::config::IgnoreEntry;
use crate::vocab::filter::{Filter, SuppressedBy};
use crate::vocab::rules::{check_rule, UNSUPPRESSIBLE};
use autosync_oracle::ir::{Kernel, Span};
use serde::Serialize;

/// A suppression comment found in a source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// Index of the text (0 = the main file).
    pub file: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column of the comment's start (code points).
    pub column: u32,
    /// 1-based column one past the comment's end on its line (code points).
    pub end_column: u32,
    /// The comment as written (`// autosync: ignore[race]`), trimmed.
    pub text: String,
    /// `ignore-kernel`: applies to the kernel defined on the lines `lines`.
    pub kernel_level: bool,
    /// For `ignore-kernel`: the lines (inclusive) the kernel's definition may start on.
    pub lines: (u32, u32),
    /// Rules it names; `None` for all rules.
    pub rules: Option<Vec<String>>,
}

impl Comment {
    fn covers(&self, rule: &str) -> bool {
        self.rules.as_ref().is_none_or(|r| r.iter().any(|x| x == rule))
    }
}

/// A problem with a suppression comment (malformed, unknown rule, suppresses nothing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommentProblem {
    /// Index of the text.
    #[serde(skip)]
    pub file: usize,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (code points).
    pub column: u32,
    /// 1-based end column (code points, exclusive).
    pub end_column: u32,
    /// What is wrong.
    pub message: String,
}

/// What suppressed a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// The comment with this index.
    Comment(usize),
    /// The config `ignore:` entry with this index (among those applying to the file).
    Config(usize),
}

/// The suppressions that apply to one source file.
#[derive(Clone, Debug, Default)]
pub struct Suppressions {
    /// Suppression comments of every text of the unit.
    pub comments: Vec<Comment>,
    /// Malformed comments and unknown rule names, reported as warnings.
    pub problems: Vec<CommentProblem>,
    /// autosync.yaml `ignore:` entries whose path glob matches the file.
    pub config: Vec<IgnoreEntry>,
    /// Line start offsets per text, to place spans on lines.
    line_starts: Vec<Vec<u32>>,
}

impl Suppressions {
    /// Reads the suppression comments of `texts` and keeps the config entries for the file.
    pub fn new(texts: &[String], config: Vec<IgnoreEntry>) -> Suppressions {
        let mut s = Suppressions {
            config,
            ..Default::default()
        };
        for (fi, text) in texts.iter().enumerate() {
            s.line_starts.push(line_starts(text));
            for (lo, hi) in comments(text) {
                s.read_comment(fi, text, lo, hi);
            }
        }
        s
    }

    fn read_comment(&mut self, file: usize, text: &str, lo: usize, hi: usize) {
        let raw = &text[lo..hi];
        let body = raw
            .strip_prefix("//")
            .or_else(|| raw.strip_prefix("/*").map(|b| b.strip_suffix("*/").unwrap_or(b)))
            .unwrap_or(raw)
            .trim();
        let Some(rest) = body.strip_prefix("autosync:") else {
            return;
        };
        let rest = rest.trim_start();
        if !rest.starts_with("ignore") {
            // Other `autosync:` comments (the `--annotate` notes) are not directives.
            return;
        }
        let (line, column) = self.line_col(file, text, lo);
        let end_column = column + raw.lines().next().unwrap_or("").chars().count() as u32;
        let problem = |message: String| CommentProblem {
            file,
            line,
            column,
            end_column,
            message,
        };
        let (kernel_level, after) = match rest.strip_prefix("ignore-kernel") {
            Some(a) => (true, a),
            None => (false, &rest["ignore".len()..]),
        };
        let (rules, tail) = match after.strip_prefix('[') {
            Some(list) => match list.split_once(']') {
                Some((names, tail)) => (Some(names), tail),
                None => {
                    self.problems
                        .push(problem(format!("malformed suppression `{}`: missing `]`", raw.trim())));
                    return;
                }
            },
            None => (None, after),
        };
        if tail.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_') {
            self.problems.push(problem(format!(
                "malformed suppression `{}`: write `autosync: ignore[RULE, ...]` or `autosync: ignore-kernel[RULE, ...]`",
                raw.trim()
            )));
            return;
        }
        let rules = match rules {
            None => None,
            Some(names) => {
                let mut ok = Vec::new();
                for n in names.split(',').map(str::trim) {
                    if n.is_empty() {
                        self.problems.push(problem(format!(
                            "malformed suppression `{}`: empty rule name",
                            raw.trim()
                        )));
                        continue;
                    }
                    match check_rule(n) {
                        Ok(r) => ok.push(r),
                        Err(m) => self.problems.push(problem(m)),
                    }
                }
                if ok.is_empty() {
                    return;
                }
                Some(ok)
            }
        };
        let lines = if kernel_level {
            kernel_lines(text, &self.line_starts[file], line, lo)
        } else {
            (line, line)
        };
        self.comments.push(Comment {
            file,
            line,
            column,
            end_column,
            text: raw.lines().next().unwrap_or("").trim().to_string(),
            kernel_level,
            lines,
            rules,
        });
    }

    fn line_col(&self, file: usize, text: &str, offset: usize) -> (u32, u32) {
        let starts = &self.line_starts[file];
        let i = starts.partition_point(|&s| s as usize <= offset).saturating_sub(1);
        let col = text[starts[i] as usize..offset].chars().count() as u32 + 1;
        (i as u32 + 1, col)
    }

    /// (text index, 1-based line) of the start of a span.
    fn line_of(&self, span: Span) -> Option<(usize, u32)> {
        if span.is_dummy() {
            return None;
        }
        let file = span.file.0 as usize;
        let starts = self.line_starts.get(file)?;
        Some((file, starts.partition_point(|&s| s <= span.lo) as u32))
    }

    /// Which suppression covers a finding of `rule` in kernel `k` that points at `spans`.
    pub fn find_by(&self, k: &Kernel, rule: &str, spans: &[Span]) -> Option<By> {
        if UNSUPPRESSIBLE.contains(&rule) {
            return None;
        }
        let lines: Vec<(usize, u32)> = spans.iter().filter_map(|s| self.line_of(*s)).collect();
        let start = self.line_of(k.span);
        let by_comment = self.comments.iter().position(|c| {
            c.covers(rule)
                && if c.kernel_level {
                    start.is_some_and(|(f, l)| f == c.file && (c.lines.0..=c.lines.1).contains(&l))
                } else {
                    lines.contains(&(c.file, c.line))
                }
        });
        if let Some(i) = by_comment {
            return Some(By::Comment(i));
        }
        self.config
            .iter()
            .position(|e| e.kernel.as_ref().is_none_or(|n| *n == k.name) && e.covers(rule))
            .map(By::Config)
    }

    /// Describes suppression `by` (spans and files of kernel `k`).
    pub fn describe(&self, by: By, k: &Kernel) -> SuppressedBy {
        match by {
            By::Comment(i) => {
                let c = &self.comments[i];
                SuppressedBy {
                    kind: if c.kernel_level { "kernel-comment" } else { "comment" },
                    file: k.files.get(c.file).map(|f| f.path.clone()).unwrap_or_default(),
                    line: Some(c.line),
                    text: c.text.clone(),
                    reason: None,
                    comment: Some(i),
                }
            }
            By::Config(i) => {
                let e = &self.config[i];
                SuppressedBy {
                    kind: "config",
                    file: e.config.display().to_string(),
                    line: e.line.map(|l| l as u32),
                    text: e.describe(),
                    reason: e.reason.clone(),
                    comment: None,
                }
            }
        }
    }
}

impl Filter for Suppressions {
    fn find(&self, k: &Kernel, rule: &str, spans: &[Span]) -> Option<SuppressedBy> {
        self.find_by(k, rule, spans).map(|b| self.describe(b, k))
    }

    /// A comment anywhere in the unit, or a config entry for the kernel.
    fn may_apply_to(&self, k: &Kernel) -> bool {
        !self.comments.is_empty()
            || self
                .config
                .iter()
                .any(|e| e.kernel.as_ref().is_none_or(|n| *n == k.name))
    }

    fn is_empty(&self) -> bool {
        self.comments.is_empty() && self.config.is_empty()
    }
}

/// Byte offsets of the start of every line.
fn line_starts(text: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

/// The lines a kernel-level comment on `line` applies to: its own line when code precedes
/// the comment there, else the next line, reaching further down over comment-only lines and
/// `template <...>` lines (a kernel template's definition starts below its template line).
fn kernel_lines(text: &str, starts: &[u32], line: u32, comment_at: usize) -> (u32, u32) {
    let line_text = |l: u32| -> Option<&str> {
        let lo = *starts.get(l as usize - 1)? as usize;
        let hi = starts.get(l as usize).map_or(text.len(), |&h| h as usize);
        Some(text[lo..hi].trim())
    };
    let own_start = starts[line as usize - 1] as usize;
    if !text[own_start..comment_at].trim().is_empty() {
        return (line, line);
    }
    let first = line + 1;
    let mut last = first;
    while let Some(t) = line_text(last) {
        let skip = t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') || t.starts_with("template");
        if !skip {
            break;
        }
        last += 1;
    }
    (first, last)
}

/// Byte ranges of the comments in C/C++ source text (string and character literals skipped).
pub fn comments(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                out.push((i, end.min(b.len())));
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                out.push((i, end));
                i = end;
            }
            _ => i += 1,
        }
    }
    // Every range starts and ends at an ASCII byte (or the end), so slicing at it is safe.
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sup(text: &str) -> Suppressions {
        Suppressions::new(&[text.to_string()], vec![])
    }

    #[test]
    fn comments_skip_strings() {
        let t = "a = \"// no\"; // yes\n/* block */ c = '/';\n";
        let c: Vec<&str> = comments(t).into_iter().map(|(l, h)| &t[l..h]).collect();
        assert_eq!(c, ["// yes", "/* block */"]);
    }

    #[test]
    fn parses_rules_aliases_and_bare_ignores() {
        let s = sup("x; // autosync: ignore[race, divergence] benign\ny; /* autosync: ignore */\n");
        assert_eq!(s.comments.len(), 2);
        assert_eq!(
            s.comments[0].rules,
            Some(vec!["race".to_string(), "barrier-divergence".to_string()])
        );
        assert_eq!((s.comments[0].line, s.comments[0].column), (1, 4));
        assert_eq!(s.comments[1].rules, None);
        assert_eq!(s.comments[1].line, 2);
        assert!(s.problems.is_empty(), "{:?}", s.problems);
    }

    #[test]
    fn bad_comments_are_problems_and_other_autosync_comments_are_not() {
        let s = sup("// autosync: ignore[rase]\n// autosync: ignore[race\n// autosync: ignored\n// autosync: orders s (lines 3↔4)\n// autosync: ignore[inconclusive]\n");
        assert!(s.comments.is_empty());
        let m: Vec<&str> = s.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(m.len(), 4, "{m:?}");
        assert!(m[0].contains("unknown rule `rase`"), "{m:?}");
        assert!(m[1].contains("missing `]`"), "{m:?}");
        assert!(m[2].contains("malformed"), "{m:?}");
        assert!(m[3].contains("cannot be suppressed"), "{m:?}");
    }

    #[test]
    fn kernel_comments_reach_over_template_and_comment_lines() {
        let s = sup("// autosync: ignore-kernel[race]\n// doc\ntemplate <int N>\n__global__ void k() {}\n");
        assert_eq!(s.comments[0].lines, (2, 4));
        let s = sup("__global__ void k() { // autosync: ignore-kernel\n}\n");
        assert_eq!(s.comments[0].lines, (1, 1));
    }
}
