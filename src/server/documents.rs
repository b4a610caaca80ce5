//! The documents the editor has open: each one's path, the text the editor holds, its
//! generation (a session-wide counter bumped on every change, so a check's results are known
//! to be for the current text or not), the check in flight and what the last check found.

use super::diagnostics::Finding;
use super::job::{Job, Reuse};
use super::offer::{Offer, OfferKind};
use super::positions::offset;
use lsp_types::{TextDocumentContentChangeEvent, Url};
use std::collections::HashMap;
use std::path::PathBuf;

/// What the check of one generation found so far.
pub struct Analysis {
    /// The generation it is for.
    pub generation: u64,
    /// The text it checked.
    pub text: String,
    /// Its diagnostics.
    pub findings: Vec<Finding>,
    /// Its verified code actions.
    pub offers: Vec<Offer>,
    /// Every stage has reported.
    pub finished: bool,
}

/// One open document.
pub struct Document {
    /// Its path.
    pub path: PathBuf,
    /// The editor's text.
    pub text: String,
    /// The editor's version of it.
    pub version: Option<i32>,
    /// The generation of `text`.
    pub generation: u64,
    /// The check in flight, if any.
    pub job: Option<Job>,
    /// The latest check's results (for `text` only when its generation is current).
    pub analysis: Option<Analysis>,
}

impl Analysis {
    /// What it found, to keep for a check of `text`, if it finished checking that text.
    pub fn reuse(&self, text: &str) -> Option<Reuse> {
        (self.finished && self.text == text).then(|| Reuse {
            diagnostics: self.findings.iter().map(|f| f.diagnostic.clone()).collect(),
            offers: self
                .offers
                .iter()
                .filter(|o| o.kind != OfferKind::Suppression)
                .cloned()
                .collect(),
        })
    }
}

impl Document {
    /// The analysis of the current text, if its check got that far.
    pub fn current(&self) -> Option<&Analysis> {
        self.analysis.as_ref().filter(|a| a.generation == self.generation)
    }

    /// Marks the check in flight superseded.
    pub fn supersede(&mut self) {
        if let Some(j) = self.job.take() {
            j.supersede();
        }
    }
}

/// The open documents.
#[derive(Default)]
pub struct Documents {
    docs: HashMap<Url, Document>,
    generations: u64,
}

impl Documents {
    /// Opens (or reopens) a document with `text`.
    pub fn open(&mut self, uri: Url, path: PathBuf, text: String, version: Option<i32>) -> &mut Document {
        self.generations += 1;
        let doc = Document {
            path,
            text,
            version,
            generation: self.generations,
            job: None,
            analysis: None,
        };
        if let Some(mut old) = self.docs.insert(uri.clone(), doc) {
            old.supersede();
        }
        self.docs.get_mut(&uri).expect("just inserted")
    }

    /// Applies the editor's changes to an open document; a new generation supersedes its check.
    pub fn change(
        &mut self,
        uri: &Url,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
    ) -> Option<&mut Document> {
        let doc = self.docs.get_mut(uri)?;
        for c in changes {
            match c.range {
                Some(r) => {
                    let (lo, hi) = (offset(&doc.text, r.start), offset(&doc.text, r.end));
                    doc.text.replace_range(lo..hi.max(lo), &c.text);
                }
                None => doc.text = c.text,
            }
        }
        self.generations += 1;
        doc.generation = self.generations;
        doc.version = Some(version);
        doc.supersede();
        Some(doc)
    }

    /// A document saved with `text`: a new generation (each check has its own, so the stages of
    /// a superseded check of the same text are told apart and dropped).
    pub fn saved(&mut self, uri: &Url, text: String) -> Option<&mut Document> {
        let doc = self.docs.get_mut(uri)?;
        self.generations += 1;
        doc.text = text;
        doc.generation = self.generations;
        doc.supersede();
        Some(doc)
    }

    /// The document, if open.
    pub fn get(&self, uri: &Url) -> Option<&Document> {
        self.docs.get(uri)
    }

    /// The document, if open.
    pub fn get_mut(&mut self, uri: &Url) -> Option<&mut Document> {
        self.docs.get_mut(uri)
    }

    /// Whether some document's check in flight is of `generation`.
    pub fn live_job(&self, generation: u64) -> bool {
        self.docs
            .values()
            .any(|d| d.job.as_ref().is_some_and(|j| j.generation == generation))
    }

    /// Closes a document; its check is superseded.
    pub fn close(&mut self, uri: &Url) -> Option<Document> {
        let mut doc = self.docs.remove(uri)?;
        doc.supersede();
        Some(doc)
    }
}
