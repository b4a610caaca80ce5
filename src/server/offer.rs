//! A code action the server can offer: a verified change of the whole text, where in the text
//! it is offered, and which diagnostics it resolves. As a code action it is one workspace edit
//! of line hunks that turns the checked text into exactly the verified one.

use super::diagnostics::Finding;
use super::hunks::{hunks, text_edits, Hunk};
use super::positions::overlaps;
use lsp_types::{CodeAction, CodeActionKind, Range, Url, WorkspaceEdit};
use std::collections::HashMap;

/// A verified change of a document.
#[derive(Clone, Debug)]
pub struct Offer {
    /// What the editor lists.
    pub title: String,
    /// The whole text after the change (what `fix` would write, for the synthesized barriers).
    pub text: String,
    /// Where a cursor or selection must be for it to be offered.
    pub at: Vec<Range>,
    /// Indexes of the diagnostics it resolves.
    pub fixes: Vec<usize>,
    /// What it does.
    pub kind: OfferKind,
}

/// What an offer does, in the order the editor lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OfferKind {
    /// Every barrier `fix` inserts: the preferred action for the races they order.
    AllBarriers,
    /// One of several inserted barriers, alone.
    OneBarrier,
    /// A redundant barrier removed.
    Removal,
    /// A suppression comment.
    Suppression,
}

impl Offer {
    /// Whether it is offered for `range`.
    pub fn applies(&self, range: &Range) -> bool {
        self.at.iter().any(|r| overlaps(r, range))
    }

    /// The code action that changes `original` (the checked text of `uri`) into this offer's
    /// text.
    pub fn action(&self, uri: &Url, original: &str, findings: &[Finding]) -> CodeAction {
        let hs = hunks(original, &self.text);
        let all: Vec<&Hunk> = hs.iter().collect();
        let edit = WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), text_edits(original, &all))])),
            ..Default::default()
        };
        let diagnostics: Vec<_> = self
            .fixes
            .iter()
            .filter_map(|&i| findings.get(i).map(|f| f.diagnostic.clone()))
            .collect();
        CodeAction {
            title: self.title.clone(),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
            edit: Some(edit),
            is_preferred: (self.kind == OfferKind::AllBarriers).then_some(true),
            ..Default::default()
        }
    }
}
