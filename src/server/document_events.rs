//! The editor's document notifications and the background checks' stages: a document is
//! checked when it is opened and when it is saved; a change supersedes the check in flight
//! (its results are dropped, never published); stages of a superseded check are dropped.

use super::code_actions::{answer_pending, cancel_pending};
use super::diagnostics::{cannot_read, Finding};
use super::documents::Analysis;
use super::events::{JobEvent, Stage};
use super::offer::Offer;
use super::state::State;
use lsp_server::ErrorCode;
use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams, Url,
};
use std::path::PathBuf;

/// The path of a `file:` URI; other documents are not checked (autosync needs a path for the
/// config, the includes and the compile commands).
fn path_of(st: &State, uri: &Url) -> Option<PathBuf> {
    let p = uri.to_file_path().ok();
    if p.is_none() {
        st.log.line(|| format!("not a file, not checked: {uri}"));
    }
    p
}

/// `textDocument/didOpen`: check the text.
pub fn did_open(st: &mut State, p: DidOpenTextDocumentParams) {
    let d = p.text_document;
    let Some(path) = path_of(st, &d.uri) else { return };
    st.docs.open(d.uri.clone(), path, d.text, Some(d.version));
    st.check(&d.uri);
}

/// `textDocument/didChange`: the text changes; the check in flight is superseded.
pub fn did_change(st: &mut State, p: DidChangeTextDocumentParams) {
    let uri = p.text_document.uri;
    if st
        .docs
        .change(&uri, p.content_changes, p.text_document.version)
        .is_none()
    {
        st.log.line(|| format!("change of a document that is not open: {uri}"));
        return;
    }
    cancel_pending(st, &uri, ErrorCode::ContentModified, "the document changed");
    st.end_superseded_progress();
}

/// `textDocument/didSave`: check the saved text (sent with the notification, else read).
pub fn did_save(st: &mut State, p: DidSaveTextDocumentParams) {
    let uri = p.text_document.uri;
    let Some(path) = path_of(st, &uri) else { return };
    let text = match p.text {
        Some(t) => t,
        None => match st.docs.get(&uri) {
            Some(d) => d.text.clone(),
            None => match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => return unreadable(st, &uri, &path, &e),
            },
        },
    };
    if st.docs.saved(&uri, text.clone()).is_none() {
        // Saved without being open: checked all the same, and kept as if opened.
        st.docs.open(uri.clone(), path, text, None);
    }
    st.end_superseded_progress();
    st.check(&uri);
}

/// A file the server cannot read: said as a diagnostic on it.
fn unreadable(st: &State, uri: &Url, path: &std::path::Path, e: &std::io::Error) {
    st.log.line(|| format!("cannot read {}: {e}", path.display()));
    st.publish(uri, &[cannot_read(path, e)], None);
}

/// `textDocument/didClose`: forget the document and clear its diagnostics.
pub fn did_close(st: &mut State, p: DidCloseTextDocumentParams) {
    let uri = p.text_document.uri;
    if st.docs.close(&uri).is_some() {
        cancel_pending(st, &uri, ErrorCode::ContentModified, "the document was closed");
        st.end_superseded_progress();
        st.publish(&uri, &[], None);
    }
}

/// A stage of a background check: kept and published when it is for the document's current
/// text, dropped otherwise.
pub fn job_event(st: &mut State, e: JobEvent) {
    let current = st.docs.get(&e.uri).is_some_and(|d| d.generation == e.generation);
    if !current {
        st.log
            .line(|| format!("dropped a superseded result of {} (generation {})", e.uri, e.generation));
        return;
    }
    match e.stage {
        Stage::Checked(findings, offers) => checked(st, &e.uri, e.generation, findings, offers),
        Stage::Step(s) => st.progress.report(&st.out, e.generation, s),
        Stage::Offers(offers) => {
            if let Some(a) = st.docs.get_mut(&e.uri).and_then(|d| d.analysis.as_mut()) {
                a.offers.extend(offers);
            }
        }
        Stage::Finished => {
            if let Some(d) = st.docs.get_mut(&e.uri) {
                d.job = None;
                if let Some(a) = d.analysis.as_mut() {
                    a.finished = true;
                }
            }
            st.progress.end(&st.out, e.generation);
            answer_pending(st, &e.uri);
        }
    }
}

fn checked(st: &mut State, uri: &Url, generation: u64, findings: Vec<Finding>, offers: Vec<Offer>) {
    let Some(version) = st.docs.get(uri).map(|d| d.version) else {
        return;
    };
    st.log.line(|| format!("{uri}: {} diagnostics", findings.len()));
    st.publish(uri, &findings, version);
    if let Some(doc) = st.docs.get_mut(uri) {
        doc.analysis = Some(Analysis {
            generation,
            text: doc.text.clone(),
            findings,
            offers,
            finished: false,
        });
    }
}
