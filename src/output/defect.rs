//! One finding as every output shows it: what is wrong, where (primary and related
//! locations), how bad, and what suppressed it if anything.

use crate::vocab::filter::SuppressedBy;
use crate::vocab::rules::Rule;
pub use crate::vocab::rules::Severity;
use crate::vocab::texts::Location;
use serde::Serialize;

/// A location with a short label (`read`, `write`, `condition`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Labeled {
    /// Where.
    #[serde(flatten)]
    pub location: Location,
    /// What happens there.
    pub label: String,
}

/// One defect of a kernel.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Defect {
    /// Rule: `race`, `barrier-divergence`, `deadlock`, ..., `inconclusive` (`vocab::rules::RULES`).
    pub rule: String,
    /// Error or warning.
    pub severity: Severity,
    /// One-line description.
    pub message: String,
    /// Primary location with its label (the first access of a race).
    pub primary: Option<Labeled>,
    /// Other locations (the second access of a race, the condition of a divergence).
    pub related: Vec<Labeled>,
    /// Race kind in execution order (`RAW`, `WAR`, `WAW`, `atomic-vs-plain`; `WAR+RAW` when it
    /// is one within an iteration and the other across iterations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race_kind: Option<String>,
    /// The array raced on (as the checker names it: the declared array).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<String>,
    /// Races: the array as the source writes it at the accesses (a pointer into it, a member).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub written_as: Vec<String>,
    /// Whether no barrier can fix it (inter-block race).
    pub inter_block: bool,
    /// The checker's witness (threads, index, parameter values), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<serde_json::Value>,
    /// Extra lines (iteration order and witness in words, named-barrier trace).
    pub notes: Vec<String>,
    /// Races in a called function: the kernel lines whose calls reach it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reached_from: Vec<u32>,
    /// Indexes of the checker report's races this finding stands for.
    #[serde(skip)]
    pub races: Vec<usize>,
    /// What suppressed it (only in `suppressed` lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_by: Option<SuppressedBy>,
}

impl Defect {
    /// A finding of `rule`, at the rule's severity, with nothing filled in.
    pub fn plain(rule: &Rule) -> Defect {
        Defect {
            rule: rule.id.into(),
            severity: rule.severity,
            message: String::new(),
            primary: None,
            related: vec![],
            race_kind: None,
            array: None,
            written_as: vec![],
            inter_block: false,
            witness: None,
            notes: vec![],
            reached_from: vec![],
            races: vec![],
            suppressed_by: None,
        }
    }

    /// Every location it names, primary first.
    pub fn locations(&self) -> impl Iterator<Item = &Labeled> {
        self.primary.iter().chain(self.related.iter())
    }
}
