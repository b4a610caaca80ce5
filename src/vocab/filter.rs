//! The suppression filter as a value: outputs, jobs and synthesis ask it which findings are
//! suppressed without knowing where suppressions come from (the workflow reads them from
//! comments and autosync.yaml).

use super::defects::{race_rule, sync_rule};
use super::rules::BARRIER_DIVERGENCE;
use autosync_oracle::ir::{Kernel, Span};
use autosync_oracle::report::Report;
use serde::Serialize;
use std::sync::Arc;

/// Decides which findings are suppressed. Inconclusive parts of a report are never suppressed.
pub trait Filter: Send + Sync + std::fmt::Debug {
    /// What suppresses a finding of `rule` in kernel `k` that points at `spans`, if anything.
    fn find(&self, k: &Kernel, rule: &str, spans: &[Span]) -> Option<SuppressedBy>;

    /// Whether any suppression could apply to kernel `k`.
    fn may_apply_to(&self, k: &Kernel) -> bool;

    /// Whether nothing can be suppressed (the common case: skip all work).
    fn is_empty(&self) -> bool;

    /// Splits a checker report into what stays and what is suppressed. Inconclusive parts
    /// always stay.
    fn split(&self, k: &Kernel, r: Report) -> (Report, Report) {
        if self.is_empty() {
            return (r, Report::default());
        }
        let mut kept = Report {
            inconclusive: r.inconclusive,
            queries: r.queries,
            settled_by_divisibility: r.settled_by_divisibility,
            settled_by_injectivity: r.settled_by_injectivity,
            ..Default::default()
        };
        let mut gone = Report::default();
        for race in r.races {
            let spans = [race.first.span, race.second.span];
            match self.find(k, race_rule(&race).id, &spans) {
                Some(_) => gone.races.push(race),
                None => kept.races.push(race),
            }
        }
        for d in r.divergences {
            match self.find(k, BARRIER_DIVERGENCE.id, &[d.span, d.cond_span]) {
                Some(_) => gone.divergences.push(d),
                None => kept.divergences.push(d),
            }
        }
        for s in r.sync_defects {
            match self.find(k, sync_rule(&s.kind).id, &s.spans) {
                Some(_) => gone.sync_defects.push(s),
                None => kept.sync_defects.push(s),
            }
        }
        (kept, gone)
    }

    /// The report without its suppressed findings.
    fn keep(&self, k: &Kernel, r: Report) -> Report {
        self.split(k, r).0
    }
}

/// What suppressed a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SuppressedBy {
    /// `comment` (on a line of the finding), `kernel-comment` (`ignore-kernel`) or `config`
    /// (an autosync.yaml `ignore:` entry).
    pub kind: &'static str,
    /// The file holding the suppression.
    pub file: String,
    /// Its 1-based line, when known.
    pub line: Option<u32>,
    /// The comment as written, or the config entry described.
    pub text: String,
    /// The config entry's `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Index of the comment in the file's suppressions (to find unused ones).
    #[serde(skip)]
    pub comment: Option<usize>,
}

impl SuppressedBy {
    /// `k.cu:12: `// autosync: ignore[race]``: where and what, for text outputs.
    pub fn describe(&self) -> String {
        match self.kind {
            "config" => self.text.clone(),
            _ => format!("`{}` at {}:{}", self.text, self.file, self.line.unwrap_or(0)),
        }
    }
}

/// Builds the filter of a unit from its source texts: `fix` reads its patched output again,
/// and the suppression comments move with the text.
#[derive(Clone)]
pub struct FilterFor(pub Arc<MakeFilter>);

/// A function from a unit's source texts to its filter.
pub type MakeFilter = dyn Fn(&[String]) -> Arc<dyn Filter> + Send + Sync;

impl FilterFor {
    /// The filter of a unit with these texts.
    pub fn of(&self, texts: &[String]) -> Arc<dyn Filter> {
        (self.0)(texts)
    }
}

impl std::fmt::Debug for FilterFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FilterFor(..)")
    }
}

/// The filter that suppresses nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFilter;

impl Filter for NoFilter {
    fn find(&self, _: &Kernel, _: &str, _: &[Span]) -> Option<SuppressedBy> {
        None
    }

    fn may_apply_to(&self, _: &Kernel) -> bool {
        false
    }

    fn is_empty(&self) -> bool {
        true
    }
}
